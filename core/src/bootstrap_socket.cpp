// The launcher's bootstrap protocol, rank side, and joining a launch from an
// exec'ed program.
#include "bootstrap_socket.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "cct/error.hpp"
#include "cct/launcher.hpp"

namespace cct::detail {

bool send_all(int fd, const void* data, std::size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    ssize_t n = ::send(fd, p, bytes, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
  return true;
}

bool recv_all(int fd, void* data, std::size_t bytes) {
  char* p = static_cast<char*>(data);
  while (bytes > 0) {
    ssize_t n = ::recv(fd, p, bytes, MSG_WAITALL);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) errno = 0;
    if (n <= 0) return false;
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
  return true;
}

SocketBootstrap::SocketBootstrap(int fd, int rank, int size, std::string job_key)
    : fd_(fd), rank_(rank), size_(size), job_key_(std::move(job_key)) {}

SocketBootstrap::~SocketBootstrap() {
  ::close(fd_);
}

void SocketBootstrap::fail(const std::string& what) const {
  std::string cause = errno != 0 ? std::strerror(errno) : "the launcher closed the channel";
  throw Error("rank " + std::to_string(rank_) + ": bootstrap " + what + ": " + cause,
              CCT_ERR_TRANSPORT);
}

void SocketBootstrap::allgather(const void* send, void* recv, std::size_t bytes) {
  FrameHeader request{kFrameAllgather, 0, bytes};
  if (!send_all(fd_, &request, sizeof request) || !send_all(fd_, send, bytes))
    fail("cannot send to the launcher");
  FrameHeader reply;
  if (!recv_all(fd_, &reply, sizeof reply)) fail("no answer from the launcher");
  if (reply.kind != kFrameAllgather || reply.bytes != bytes * static_cast<std::size_t>(size_)) {
    errno = EPROTO;
    fail("unexpected answer from the launcher");
  }
  if (!recv_all(fd_, recv, reply.bytes)) fail("answer from the launcher cut short");
}

}  // namespace cct::detail

namespace cct {
namespace {

int env_int(const char* name, const char* text) {
  int value = 0;
  const char* end = text + std::strlen(text);
  auto [ptr, ec] = std::from_chars(text, end, value);
  if (ec != std::errc() || ptr != end || value < 0)
    throw Error(std::string("malformed ") + name + "=\"" + text + "\"", CCT_ERR_INVALID_ARG);
  return value;
}

}  // namespace

std::unique_ptr<Bootstrap> bootstrap_from_environment() {
  const char* fd = std::getenv("CCT_BOOTSTRAP_FD");
  const char* rank = std::getenv("CCT_RANK");
  const char* size = std::getenv("CCT_SIZE");
  const char* key = std::getenv("CCT_JOB_KEY");
  if (fd == nullptr || rank == nullptr || size == nullptr || key == nullptr) return nullptr;
  int r = env_int("CCT_RANK", rank);
  int n = env_int("CCT_SIZE", size);
  if (r >= n) throw Error("CCT_RANK=" + std::to_string(r) + " is not below CCT_SIZE=" + size);
  return std::make_unique<detail::SocketBootstrap>(env_int("CCT_BOOTSTRAP_FD", fd), r, n, key);
}

}  // namespace cct
