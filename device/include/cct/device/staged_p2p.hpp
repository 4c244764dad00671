// Point-to-point on buffers in device or host memory over a host transport
// (shm on one node, mpi across nodes): the cuda transport's p2p where two
// ranks cannot copy between their devices directly.
//
// Each message travels as its chunks (staged_pipe.hpp), so every rank must
// use the same chunk size. The host transport matches messages per pair in
// the order they were posted; so that the chunks of two messages to one
// peer never interleave, the messages to one peer are staged one after
// another (and likewise the receives from one peer): a message starts once
// the one posted before it is complete. The pipes and their pinned memory
// are kept for the next message, so a steady state allocates nothing.
//
// The operations are those of cct_p2p_ops (cct/abi/transport.h), with its
// rules: one thread at a time; a request's storage stays put until it
// completed; a call that fails returns its status and leaves the reason in
// error().
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "cct/abi/transport.h"
#include "cct/device/backend.hpp"
#include "cct/device/staged_pipe.hpp"

namespace cct::device {

class StagedP2p {
 public:
  // host: an open host transport over the same ranks, used until this is
  // destroyed. timeout_s: as cct_bootstrap.timeout_s (0: wait forever).
  StagedP2p(Backend& backend, cct_transport_instance* host, StagingShape shape, double timeout_s);
  ~StagedP2p();
  StagedP2p(const StagedP2p&) = delete;
  StagedP2p& operator=(const StagedP2p&) = delete;

  cct_status isend(const void* buf, std::size_t bytes, int peer, uint32_t tag, cct_request* req);
  cct_status irecv(void* buf, std::size_t bytes, int peer, uint32_t tag, cct_request* req);
  cct_status test(cct_request* req, int* done);
  cct_status waitall(cct_request* reqs, std::size_t count);
  const std::string& error() const { return error_; }

 private:
  struct Op;
  using Queue = std::deque<Op*>;  // one peer's messages in one direction, oldest first

  cct_status post(bool send, void* buf, std::size_t bytes, int peer, uint32_t tag,
                  cct_request* req);
  static Op* op_of(const cct_request* req);
  static void bind(cct_request* req, Op* op);
  Op* take_op(bool send);
  void release(Op& op);  // a complete message's op, kept for the next one
  // Progresses the oldest message of every queue; a message that finished
  // leaves its queue and the next one starts. True when anything moved.
  bool progress();
  bool progress(Queue& queue);
  void start(Op& op);
  // The reason for a timeout: where every unfinished message stands.
  std::string pending() const;
  cct_status fail(cct_status status, const std::string& why);

  PipeSetup setup_;
  double timeout_s_;
  std::vector<Queue> sends_, recvs_;  // per peer
  std::vector<std::unique_ptr<Op>> ops_;
  std::vector<Op*> idle_sends_, idle_recvs_;
  std::string error_;
};

}  // namespace cct::device
