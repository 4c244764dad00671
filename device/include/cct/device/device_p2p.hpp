// Point-to-point on buffers in device or host memory over a host transport
// (shm on one node, mpi across nodes): the cuda transport's p2p.
//
// A message moves one of two ways:
//   - copied by IPC: the receiver copies it straight out of the sender's
//     device memory, mapped into its own process (CUDA IPC: one device
//     copy, no host memory on the way). That needs ranks of one node: the
//     host transport's shared memory carries the two sides' agreement on
//     each message (peer_mailbox.hpp). The sender's buffer must be device
//     memory whose allocation the backend can export, and the receiver
//     must be able to map it; where either fails, the message is staged.
//     A send so offered completes once the receiver's copy did (as a
//     rendezvous).
//   - staged: through host memory, in chunks (staged_pipe.hpp), so the two
//     sides of a message must post it under the same chunk size
//     (set_chunk). The pipes and their pinned memory are kept for the next
//     message, so a steady state allocates nothing; beyond its own block,
//     a pipe borrows from the instance's pool (shape.pool_blocks), so that
//     many messages in flight at once (PDBP's flows) share a bounded
//     amount.
// Either way, the messages to one peer move one after another (and
// likewise the receives from one peer): a message starts once the one
// posted before it is complete. The host transport matches messages per
// pair in the order they were posted, so the chunks of two messages never
// interleave, and the mailbox needs one offer per direction.
//
// The operations are those of cct_p2p_ops (cct/abi/transport.h), with its
// rules: one thread at a time; a request's storage stays put until it
// completed; a call that fails returns its status and leaves the reason in
// error().
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cct/abi/transport.h"
#include "cct/device/backend.hpp"
#include "cct/device/ipc_mappings.hpp"
#include "cct/device/peer_mailbox.hpp"
#include "cct/device/staged_pipe.hpp"

namespace cct::device {

class DeviceP2p {
 public:
  // host: an open host transport over the same ranks, used until this is
  // destroyed. ipc: whether messages may be copied by IPC, where the host
  // transport has shared memory (its ranks share a node); collective then
  // (the mailbox's region), and equal on every rank. timeout_s: as
  // cct_bootstrap.timeout_s (0: wait forever).
  DeviceP2p(Backend& backend, cct_transport_instance* host, StagingShape shape, bool ipc,
            double timeout_s);
  ~DeviceP2p();
  DeviceP2p(const DeviceP2p&) = delete;
  DeviceP2p& operator=(const DeviceP2p&) = delete;

  cct_status isend(const void* buf, std::size_t bytes, int peer, uint32_t tag, cct_request* req);
  cct_status irecv(void* buf, std::size_t bytes, int peer, uint32_t tag, cct_request* req);
  cct_status test(cct_request* req, int* done);
  cct_status waitall(cct_request* reqs, std::size_t count);
  // The chunk size of the staged messages posted from now on
  // (cct_device_ops.set_chunk); 0: shape.chunk_bytes. Messages already
  // posted keep theirs.
  void set_chunk(std::size_t chunk_bytes);
  const std::string& error() const { return error_; }

  // How the messages this rank received moved, and why the first one
  // offered by IPC was staged instead ("" while none was): for ccinfo,
  // logs and tests.
  struct Received {
    uint64_t copied = 0;
    uint64_t staged = 0;
  };
  const Received& received() const { return received_; }
  const std::string& ipc_refusal() const { return ipc_refusal_; }
  // The pinned blocks the pipes of chunk_bytes borrow (null where
  // shape.pool_blocks is 0 or no such pipe was made).
  const PinnedPool* pool(std::size_t chunk_bytes) const {
    const auto it = pools_.find(chunk_bytes);
    return it == pools_.end() ? nullptr : it->second.get();
  }

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
  void start_pipe(Op& op);
  Offer offer_for(const Op& op);
  // The receiver's side of an offer: a copy out of the sender's memory, or
  // the staged pipe.
  void take(Op& op, const Offer& offer);
  // One step of a message through the mailbox; true when it moved.
  bool advance(Op& op);
  Stream ipc_stream();
  // The reason for a timeout: where every unfinished message stands.
  std::string pending() const;
  cct_status fail(cct_status status, const std::string& why);

  PipeSetup setup_;
  double timeout_s_;
  int32_t pid_;                                               // this process, named in IPC offers
  std::size_t chunk_;                                         // of the messages posted now
  std::map<std::size_t, std::unique_ptr<PinnedPool>> pools_;  // per chunk size, before the pipes
  std::unique_ptr<PeerMailbox> mailbox_;                      // null: every message is staged
  std::vector<uint64_t> offered_, taken_;                     // per peer: the last message's number
  IpcMappings mappings_;  // before the stream that copies out of them
  std::unique_ptr<UniqueStream> ipc_stream_;
  Received received_;
  std::string ipc_refusal_;
  std::vector<Queue> sends_, recvs_;  // per peer
  std::vector<std::unique_ptr<Op>> ops_;
  std::vector<Op*> idle_sends_, idle_recvs_;
  std::string error_;
};

}  // namespace cct::device
