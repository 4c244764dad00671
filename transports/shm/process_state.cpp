#include "process_state.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <string_view>

namespace cct::shm {

// Read with plain open/read: the stale-segment sweep runs at a transport's
// start, where iostreams would only add weight.
char process_state(pid_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char line[512];
  const ssize_t n = ::read(fd, line, sizeof line);
  ::close(fd);
  if (n <= 0) return 0;
  // "<pid> (<command>) <state> ...": the command may hold ')' itself.
  const std::string_view text(line, static_cast<std::size_t>(n));
  const std::size_t end = text.rfind(')');
  return end != std::string_view::npos && end + 2 < text.size() ? text[end + 2] : 0;
}

}  // namespace cct::shm
