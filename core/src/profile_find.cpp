// Finding the profile of this machine among the files of some directories.
// The file name is only a hint: a renamed or copied file must not apply a
// profile tuned on another machine, so the fingerprint inside decides.
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "cct/profile.hpp"
#include "cct/registry.hpp"

namespace cct {
namespace {

namespace fs = std::filesystem;

// Whether the YAML file at path declares machine.fingerprint == fingerprint.
// Unreadable or malformed files simply do not match.
bool declares(const fs::path& path, const std::string& fingerprint) {
  try {
    const YAML::Node root = YAML::LoadFile(path.string());
    const YAML::Node machine = root.IsMap() ? root["machine"] : YAML::Node();
    const YAML::Node fp = machine.IsMap() ? machine["fingerprint"] : YAML::Node();
    return fp.IsScalar() && fp.Scalar() == fingerprint;
  } catch (const YAML::Exception&) {
    return false;
  }
}

// The *.yaml files of dir, by name, the conventional <fingerprint>.yaml first.
std::vector<fs::path> candidates(const fs::path& dir, const std::string& fingerprint) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".yaml" && entry.is_regular_file(ec))
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  auto conventional = std::find(files.begin(), files.end(), dir / (fingerprint + ".yaml"));
  if (conventional != files.end()) std::rotate(files.begin(), conventional, conventional + 1);
  return files;
}

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// This libcct's own profile directory, found from where the library is:
// build/profiles when it runs from the build tree (build/lib/libcct.so),
// else the install's <prefix>/share/ccautotune/profiles, wherever the
// install was put (the shipped profiles are installed there).
std::string own_dir() {
  const std::string lib = host_library_dir();
  if (lib.empty()) return "";
  std::error_code ec;
  if (fs::equivalent(lib, CCT_BUILD_LIB_DIR, ec))
    return (fs::path(lib).parent_path() / "profiles").string();
  return (fs::path(lib) / CCT_LIB_TO_PROFILES).lexically_normal().string();
}

bool in_build_tree() {
  std::error_code ec;
  return fs::equivalent(host_library_dir(), CCT_BUILD_LIB_DIR, ec);
}

std::string user_dir() {
  const std::string data = env_or_empty("XDG_DATA_HOME");
  const std::string home = env_or_empty("HOME");
  if (data.empty() && home.empty()) return "";
  return (data.empty() ? home + "/.local/share" : data) + "/ccautotune/profiles";
}

// Whether files can be created in dir, or in the nearest existing parent
// that creating dir would write to.
bool writable(fs::path dir) {
  std::error_code ec;
  while (!dir.empty() && !fs::exists(dir, ec)) dir = dir.parent_path();
  return !dir.empty() && access(dir.c_str(), W_OK) == 0;
}

}  // namespace

std::vector<std::string> profile_dirs() {
  std::vector<std::string> dirs;
  std::stringstream ss(env_or_empty("CCT_PROFILE_PATH"));
  for (std::string dir; std::getline(ss, dir, ':');)
    if (!dir.empty()) dirs.push_back(dir);
  for (const std::string& dir : {own_dir(), user_dir()})
    if (!dir.empty()) dirs.push_back(dir);
  return dirs;
}

std::string default_profile_out_dir() {
  const std::string own = own_dir();
  if (in_build_tree() || user_dir().empty() || writable(own)) return own;
  return user_dir();
}

bool ProfileChoice::off() const {
  return why == kProfileOff;
}

ProfileChoice choose_profile(const std::vector<std::string>& fingerprints) {
  if (std::string named = env_or_empty("CCT_PROFILE"); named == "none")
    return {"", kProfileOff};
  else if (!named.empty())
    return {named, "CCT_PROFILE"};
  const std::vector<std::string> dirs = profile_dirs();
  for (std::size_t i = 0; i < fingerprints.size(); ++i)
    if (std::string found = find_profile_for(fingerprints[i], dirs); !found.empty())
      return {found,
              i == 0 ? "this machine's fingerprint"
                     : "this machine's fingerprint in an earlier form (" + fingerprints[i] + ")"};
  return {};
}

ProfileChoice choose_profile(const std::string& fingerprint) {
  return choose_profile(std::vector<std::string>{fingerprint});
}

std::string find_profile_for(const std::string& fingerprint, const std::vector<std::string>& dirs) {
  for (const std::string& dir : dirs)
    for (const fs::path& file : candidates(dir, fingerprint))
      if (declares(file, fingerprint)) return file.string();
  return "";
}

}  // namespace cct
