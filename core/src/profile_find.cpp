// Finding the profile of this machine among the files of some directories.
// The file name is only a hint: a renamed or copied file must not apply a
// profile tuned on another machine, so the fingerprint inside decides.
// Where no file has this machine's fingerprint, the summary inside finds
// the nearest machine of its kind.
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>

#include "cct/machine_kind.hpp"
#include "cct/profile.hpp"
#include "cct/registry.hpp"

namespace cct {
namespace {

namespace fs = std::filesystem;

// The machine section of the YAML file at path: its fingerprint and
// summary. Unreadable or malformed files declare none.
struct DeclaredMachine {
  std::string fingerprint;
  std::string summary;
};

std::optional<DeclaredMachine> declared_machine(const fs::path& path) {
  try {
    const YAML::Node root = YAML::LoadFile(path.string());
    const YAML::Node machine = root.IsMap() ? root["machine"] : YAML::Node();
    if (!machine.IsMap() || !machine["fingerprint"].IsScalar()) return std::nullopt;
    // A missing key gives a node that throws on every question but
    // IsDefined().
    const YAML::Node summary = machine["summary"];
    return DeclaredMachine{machine["fingerprint"].Scalar(),
                           summary.IsDefined() && summary.IsScalar() ? summary.Scalar() : ""};
  } catch (const YAML::Exception&) {
    return std::nullopt;
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

ProfileChoice choose_profile(const MachineIdentity& machine) {
  if (std::string named = env_or_empty("CCT_PROFILE"); named == "none")
    return {.why = kProfileOff};
  else if (!named.empty())
    return {.path = named, .why = "CCT_PROFILE"};
  const std::vector<std::string> dirs = profile_dirs();
  const std::vector<std::string>& mine = machine.fingerprints;
  for (std::size_t i = 0; i < mine.size(); ++i)
    if (std::string found = find_profile_for(mine[i], dirs); !found.empty())
      return {.path = found,
              .why = i == 0 ? "this machine's fingerprint"
                            : "this machine's fingerprint in an earlier form (" + mine[i] + ")"};
  if (machine.summary.empty()) return {};
  return find_similar_profile(machine.summary, dirs);
}

ProfileChoice choose_profile(const std::string& fingerprint) {
  return choose_profile(MachineIdentity{.fingerprints = {fingerprint}});
}

std::string find_profile_for(const std::string& fingerprint, const std::vector<std::string>& dirs) {
  for (const std::string& dir : dirs)
    for (const fs::path& file : candidates(dir, fingerprint))
      if (auto m = declared_machine(file); m && m->fingerprint == fingerprint) return file.string();
  return "";
}

ProfileChoice find_similar_profile(const std::string& summary,
                                   const std::vector<std::string>& dirs) {
  ProfileChoice nearest;
  double nearest_distance = 0;
  for (const std::string& dir : dirs)
    for (const fs::path& file : candidates(dir, "")) {
      const std::optional<DeclaredMachine> m = declared_machine(file);
      const std::optional<MachineDifference> d =
          m ? compare_machines(m->summary, summary) : std::nullopt;
      if (!d || (!nearest.path.empty() && d->distance >= nearest_distance)) continue;
      nearest = {.path = file.string(),
                 .why = "a machine of the same kind (fingerprint " + m->fingerprint + ")",
                 .differences = d->text.empty() ? "nothing the summaries show" : d->text,
                 .similar = true};
      nearest_distance = d->distance;
    }
  return nearest;
}

}  // namespace cct
