#include "cct/files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "cct/error.hpp"

namespace cct {
namespace {

// Writes all of text to fd; false (errno set) on a short or failed write.
bool write_all(int fd, const std::string& text) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& text, mode_t mode,
                           const std::string& what) {
  const auto fail = [&](const char* step, int error) {
    throw Error(what + " " + path + ": " + step + ": " + std::strerror(error));
  };
  const std::filesystem::path target(path);
  std::string tmp =
      (target.parent_path() / ("." + target.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) fail("creating a temporary file", errno);
  bool ok = ::fchmod(fd, mode) == 0 && write_all(fd, text) && ::fsync(fd) == 0;
  int error = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    error = errno;
  }
  if (ok && ::rename(tmp.c_str(), path.c_str()) == 0) return;
  if (ok) error = errno;
  ::unlink(tmp.c_str());
  fail(ok ? "renaming the temporary file" : "writing", error);
}

}  // namespace cct
