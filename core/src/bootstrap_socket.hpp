// The launcher's bootstrap protocol (private to libcct): framed messages over
// one stream socket between each rank and the launching parent.
//
// A rank sends {kFrameAllgather, n} followed by its n bytes; once every rank
// has sent its contribution the parent answers each with {kFrameAllgather,
// size*n} followed by the contributions in rank order. A barrier is an
// allgather of 0 bytes. A rank has at most one request outstanding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "cct/bootstrap.hpp"

namespace cct::detail {

enum : uint32_t { kFrameAllgather = 1 };

struct FrameHeader {
  uint32_t kind = 0;
  uint32_t reserved = 0;
  uint64_t bytes = 0;
};

// Send / receive exactly `bytes` bytes. false on EOF or error (errno tells
// which; 0 on a clean EOF). Sending never raises SIGPIPE.
bool send_all(int fd, const void* data, std::size_t bytes);
bool recv_all(int fd, void* data, std::size_t bytes);

// The rank's side of the protocol. Owns fd.
class SocketBootstrap final : public Bootstrap {
 public:
  SocketBootstrap(int fd, int rank, int size, std::string job_key);
  ~SocketBootstrap() override;
  SocketBootstrap(const SocketBootstrap&) = delete;
  SocketBootstrap& operator=(const SocketBootstrap&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string job_key() const override { return job_key_; }
  void allgather(const void* send, void* recv, std::size_t bytes) override;
  void barrier() override { allgather(nullptr, nullptr, 0); }

 private:
  [[noreturn]] void fail(const std::string& what) const;

  int fd_;
  int rank_;
  int size_;
  std::string job_key_;
};

}  // namespace cct::detail
