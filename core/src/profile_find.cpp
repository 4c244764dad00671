// Finding the profile of this machine among the files of some directories.
// The file name is only a hint: a renamed or copied file must not apply a
// profile tuned on another machine, so the fingerprint inside decides.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>

#include "cct/profile.hpp"

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

}  // namespace

std::string find_profile_for(const std::string& fingerprint, const std::vector<std::string>& dirs) {
  for (const std::string& dir : dirs)
    for (const fs::path& file : candidates(dir, fingerprint))
      if (declares(file, fingerprint)) return file.string();
  return "";
}

}  // namespace cct
