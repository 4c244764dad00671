// POSIX shared-memory segments.
#include "segment.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "cct/sdk/comm.hpp"

namespace cct::shm {
namespace {

[[noreturn]] void fail(const char* call, const std::string& name, int error) {
  throw sdk::TransportError(CCT_ERR_TRANSPORT, std::string("shm segment ") + name + ": " + call +
                                                   ": " + std::strerror(error));
}

// Maps fd and closes it: the mapping keeps the object alive by itself.
void* map_and_close(int fd, const std::string& name, std::size_t bytes) {
  void* addr = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int error = errno;
  ::close(fd);
  if (addr == MAP_FAILED) fail("mmap", name, error);
  return addr;
}

}  // namespace

Mapping Mapping::create(const std::string& name, std::size_t bytes) {
  int fd = ::shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0) fail("shm_open", name, errno);
  if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    int error = errno;
    ::close(fd);
    ::shm_unlink(name.c_str());
    fail("ftruncate", name, error);
  }
  try {
    return Mapping(map_and_close(fd, name, bytes), bytes);
  } catch (...) {
    ::shm_unlink(name.c_str());
    throw;
  }
}

Mapping Mapping::open(const std::string& name, std::size_t bytes) {
  int fd = ::shm_open(name.c_str(), O_RDWR, 0);
  if (fd < 0) fail("shm_open", name, errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || static_cast<std::size_t>(st.st_size) < bytes) {
    ::close(fd);
    fail("size check", name, EINVAL);
  }
  return Mapping(map_and_close(fd, name, bytes), bytes);
}

Mapping::~Mapping() {
  if (addr_ != nullptr) ::munmap(addr_, bytes_);
}

Mapping::Mapping(Mapping&& other) noexcept
    : addr_(std::exchange(other.addr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

Mapping& Mapping::operator=(Mapping&& other) noexcept {
  if (this != &other) {
    if (addr_ != nullptr) ::munmap(addr_, bytes_);
    addr_ = std::exchange(other.addr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void Unlinker::unlink() {
  if (!name_.empty()) ::shm_unlink(name_.c_str());
  name_.clear();
}

}  // namespace cct::shm
