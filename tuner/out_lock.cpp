#include "tuner/out_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <utility>

#include "tuner/options.hpp"

namespace cct::tuner {
namespace {

// The pid holding a flock on the file fd refers to, from /proc/locks
// ("1: FLOCK  ADVISORY  WRITE 4242 fe:00:10953076 0 EOF"); 0 if none shows.
long lock_holder(int fd) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return 0;
  char id[64];
  std::snprintf(id, sizeof id, "%02x:%02x:%lu", major(st.st_dev), minor(st.st_dev),
                static_cast<unsigned long>(st.st_ino));
  std::ifstream locks("/proc/locks");
  for (std::string line; std::getline(locks, line);) {
    std::istringstream fields(line);
    std::string number, kind, mode, access, device;
    long pid = 0;
    if (fields >> number >> kind >> mode >> access >> pid >> device && kind == "FLOCK" &&
        device == id)
      return pid;
  }
  return 0;
}

// "pid 4242 (ccautotune --out /tmp/x)", or "another process" when the
// holder cannot be told (another PID namespace, a race with its exit).
std::string describe_process(long pid) {
  if (pid <= 0) return "another process";
  std::ifstream file("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string command, word;
  while (std::getline(file, word, '\0')) command += (command.empty() ? "" : " ") + word;
  if (command.size() > 200) command = command.substr(0, 200) + "...";
  return "pid " + std::to_string(pid) + (command.empty() ? "" : " (" + command + ")");
}

}  // namespace

OutLock::OutLock(const std::string& dir)
    : fd_(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
  if (fd_ < 0)
    throw UsageError("--out " + dir + ": cannot open the directory: " + std::strerror(errno));
  if (flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
  const int error = errno;
  const std::string holder = error == EWOULDBLOCK ? describe_process(lock_holder(fd_)) : "";
  close(fd_);
  fd_ = -1;
  // A file system without locks (some NFS setups) must not stop tuning.
  if (error != EWOULDBLOCK) {
    std::cerr << "ccautotune: warning: cannot lock --out " << dir << " (" << std::strerror(error)
              << "): a second run into it would not be refused\n";
    return;
  }
  throw UsageError("--out " + dir + " is being tuned by " + holder +
                   ": wait for it to end, or tune into another directory");
}

OutLock::OutLock(OutLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

OutLock& OutLock::operator=(OutLock&& other) noexcept {
  std::swap(fd_, other.fd_);
  return *this;
}

OutLock::~OutLock() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace cct::tuner
