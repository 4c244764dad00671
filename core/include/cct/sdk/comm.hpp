// ccautotune C++ SDK: the communicator as an algorithm uses it.
//
// A thin, non-owning view over cct_comm: point-to-point helpers that turn
// transport errors into exceptions (the algorithm trampolines turn them back
// into status codes), topology levels, and shared regions.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cct/abi/algorithm.h"

namespace cct::sdk {

// "Cannot run here, because ...": thrown from check() or a constructor,
// reported as CCT_ERR_UNSUPPORTED.
struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A failed transport call, reported as its status.
struct TransportError : std::runtime_error {
  TransportError(cct_status s, const std::string& what) : std::runtime_error(what), status(s) {}
  cct_status status;
};

// Throws when a transport call failed, with the reason the transport left
// in its last_error.
inline void check_status(cct_status s, const char* what, const cct_transport_instance* tr) {
  if (s != CCT_OK)
    throw TransportError(s, std::string(what) + " failed (status " + std::to_string(s) +
                                "): " + tr->last_error.message);
}

// cct_comm.timeout_s, 0 where the host's cct_comm predates it.
inline double timeout_of(const cct_comm& comm) {
  return comm.struct_size >= offsetof(cct_comm, timeout_s) + sizeof comm.timeout_s ? comm.timeout_s
                                                                                   : 0;
}

// One level of the hierarchy (see cct_level): which group a rank is in.
class Level {
 public:
  Level(const cct_level* level, int size) : level_(level), size_(size) {}
  cct_level_kind kind() const { return level_->kind; }
  int groups() const { return level_->groups; }
  int group_of(int rank) const { return level_->group_of[rank]; }
  // The leader of a group is its lowest rank.
  int leader_of_group(int group) const {
    for (int r = 0; r < size_; ++r)
      if (level_->group_of[r] == group) return r;
    throw std::out_of_range("no rank in group");
  }

 private:
  const cct_level* level_;
  int size_;
};

class Comm {
 public:
  explicit Comm(const cct_comm* comm) : comm_(comm), tr_(comm->transport) {}

  int rank() const { return comm_->rank; }
  int size() const { return comm_->size; }
  const cct_comm* raw() const { return comm_; }
  cct_transport_instance* transport() const { return tr_; }
  int levels() const { return comm_->nlevels; }
  Level level(int i) const { return Level(&comm_->levels[i], comm_->size); }
  double timeout_s() const { return timeout_of(*comm_); }

  void isend(const void* buf, std::size_t bytes, int peer, uint32_t tag, cct_request& req) const {
    check_status(tr_->p2p->isend(tr_, buf, bytes, peer, tag, &req), "isend", tr_);
  }
  void irecv(void* buf, std::size_t bytes, int peer, uint32_t tag, cct_request& req) const {
    check_status(tr_->p2p->irecv(tr_, buf, bytes, peer, tag, &req), "irecv", tr_);
  }
  void waitall(cct_request* reqs, std::size_t count) const {
    if (count > 0) check_status(tr_->p2p->waitall(tr_, reqs, count), "waitall", tr_);
  }
  void send(const void* buf, std::size_t bytes, int peer, uint32_t tag) const {
    cct_request req;
    isend(buf, bytes, peer, tag, req);
    waitall(&req, 1);
  }
  void recv(void* buf, std::size_t bytes, int peer, uint32_t tag) const {
    cct_request req;
    irecv(buf, bytes, peer, tag, req);
    waitall(&req, 1);
  }
  // Both directions in flight at once, so a pair exchanging never deadlocks.
  void sendrecv(const void* sbuf, std::size_t sbytes, int dst, void* rbuf, std::size_t rbytes,
                int src, uint32_t tag) const {
    cct_request reqs[2];
    irecv(rbuf, rbytes, src, tag, reqs[0]);
    isend(sbuf, sbytes, dst, tag, reqs[1]);
    waitall(reqs, 2);
  }

 private:
  const cct_comm* comm_;
  cct_transport_instance* tr_;
};

// A shared region made collectively through the transport's shm table and
// freed collectively when the owner is destroyed.
class SharedRegion {
 public:
  SharedRegion(const Comm& comm, std::size_t bytes_per_rank) : tr_(comm.transport()) {
    if (tr_->shm == nullptr) throw Unsupported("transport has no shared memory");
    cct_error err{};
    if (tr_->shm->alloc(tr_, bytes_per_rank, &region_, &err) != CCT_OK)
      throw TransportError(CCT_ERR_TRANSPORT, std::string("shm alloc: ") + err.message);
  }
  ~SharedRegion() { tr_->shm->free(tr_, &region_); }
  SharedRegion(const SharedRegion&) = delete;
  SharedRegion& operator=(const SharedRegion&) = delete;

  void* peer(int rank) const { return region_.peer[rank]; }
  std::size_t bytes_per_rank() const { return region_.bytes_per_rank; }
  // Throws TransportError (CCT_ERR_TIMEOUT) when the transport's wait gave
  // up (cct_bootstrap.timeout_s) before the flag satisfied cmp.
  void wait(const uint64_t* flag, uint64_t value, cct_wait_cmp cmp) const {
    tr_->shm->wait_u64(tr_, flag, value, cmp);
    const uint64_t now =
        std::atomic_ref<uint64_t>(*const_cast<uint64_t*>(flag)).load(std::memory_order_acquire);
    if (cmp == CCT_WAIT_EQ ? now != value : now < value)
      throw TransportError(CCT_ERR_TIMEOUT, std::string("shm wait: ") + tr_->last_error.message);
  }

 private:
  cct_transport_instance* tr_;
  cct_shm_region region_{};
};

inline void store_release(uint64_t* flag, uint64_t value) {
  std::atomic_ref<uint64_t>(*flag).store(value, std::memory_order_release);
}
inline uint64_t load_acquire(const uint64_t* flag) {
  return std::atomic_ref<uint64_t>(*const_cast<uint64_t*>(flag)).load(std::memory_order_acquire);
}

}  // namespace cct::sdk
