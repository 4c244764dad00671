#include "stale_segments.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <ctime>
#include <mutex>
#include <string>
#include <string_view>

#include "process_state.hpp"

namespace cct::shm {
namespace {

constexpr std::time_t kMinimumAgeS = 60;

// The creator pid in a segment name, or 0 when the name is not one of ours.
pid_t creator_of(std::string_view name) {
  if (!name.starts_with("cct-")) return 0;
  const std::size_t at = name.find("-shm-");
  if (at == std::string_view::npos) return 0;
  const std::string_view digits = name.substr(at + 5);
  pid_t pid = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
  return ec == std::errc() && end != digits.data() && *end == '-' ? pid : 0;
}

// A zombie (killed, not yet reaped by its parent) counts as dead: a rank
// killed under mpirun is reparented to init and stays one until init
// reaps it, forever under a PID 1 that never reaps (many containers); it
// holds no mapping any more, yet kill(pid, 0) still finds it.
bool dead(pid_t pid) {
  return (::kill(pid, 0) != 0 && errno == ESRCH) || process_state(pid) == 'Z';
}

bool old(int dir_fd, const char* name) {
  struct stat st {};
  return ::fstatat(dir_fd, name, &st, 0) == 0 && std::time(nullptr) - st.st_mtime > kMinimumAgeS;
}

void sweep() {
  DIR* dir = ::opendir("/dev/shm");
  if (dir == nullptr) return;
  while (const dirent* entry = ::readdir(dir)) {
    const pid_t pid = creator_of(entry->d_name);
    if (pid > 0 && dead(pid) && old(::dirfd(dir), entry->d_name))
      ::unlinkat(::dirfd(dir), entry->d_name, 0);
  }
  ::closedir(dir);
}

}  // namespace

void remove_stale_segments() {
  static std::once_flag once;
  std::call_once(once, sweep);
}

}  // namespace cct::shm
