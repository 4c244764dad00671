// What this test process's launches left in /dev/shm: entries named after
// its job keys ("cct-<pid>-<n>..."). Shared by the launcher and shm tests.
#pragma once

#include <dirent.h>
#include <unistd.h>

#include <string>
#include <string_view>
#include <vector>

namespace cct::test {

inline std::vector<std::string> shm_entries_of_this_process() {
  std::vector<std::string> found;
  const std::string prefix = "cct-" + std::to_string(::getpid()) + "-";
  if (DIR* dir = ::opendir("/dev/shm")) {
    while (dirent* entry = ::readdir(dir))
      if (std::string_view(entry->d_name).starts_with(prefix)) found.emplace_back(entry->d_name);
    ::closedir(dir);
  }
  return found;
}

}  // namespace cct::test
