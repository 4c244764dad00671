// Device memory sent and received through host memory, in chunks that
// overlap.
//
// Where two ranks cannot copy between their GPUs directly (different
// nodes, or no CUDA IPC between them), a message in device memory has to
// cross host memory: device -> pinned host buffer -> a host transport
// (shm, mpi) -> pinned host buffer -> device. Done whole, the three steps
// add up. Cut into chunks, they overlap: while chunk i travels, chunk i+1
// is being copied off the device on the sender and chunk i-1 onto the
// device on the receiver, so a long message costs about its slowest step
// plus one chunk of each other step (PDBP's pipes between device and host
// buffer pools, docs/algorithms.md). The chunk size trades that last
// chunk against the cost per chunk (a copy launch, a message); it is a
// tuned parameter, and must be equal on both sides: they cut a message
// the same way and match its chunks in order.
//
// A pipe is one direction of one message at a time, driven without
// blocking by progress(), so that a rank can drive a send and a receive
// (or several) at once and none waits for another: drive() does that
// until all are finished. A chunk in flight holds a pinned block: the
// pipe's own (allocated on first need and kept, so the pipes of an
// algorithm's plan allocate nothing per call), or one borrowed from the
// instance's pool (pinned_pool.hpp), so that many messages in flight share
// a bounded amount of pinned memory.
//
// The chunks are the message's form on the wire whatever memory it is in:
// a buffer in host memory is sent or received chunk by chunk from where it
// is, without staging, so a sender's device buffer matches a receiver's
// host buffer and the reverse (ranks may disagree on where their buffers
// are).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <string>
#include <vector>

#include "cct/abi/transport.h"
#include "cct/device/backend.hpp"
#include "cct/device/pinned_pool.hpp"
#include "cct/sdk/backoff.hpp"

namespace cct::device {

// How a rank waits for pipes: what they wait for is a copy engine (it needs
// no core) or a peer rank (which may need this one, when ranks outnumber
// cores): a few yields, then sleeps, so that a peer sharing the core gets
// it.
inline constexpr sdk::BackoffPhases kPipeWaits{
    .spins = 0, .yields = 64, .first_sleep_ns = 1000, .max_sleep_ns = 64000};

// How a message is cut: chunks of chunk_bytes (the last one shorter), at
// most `slots` of them staged at once per pipe.
struct StagingShape {
  std::size_t chunk_bytes = std::size_t{1} << 20;
  int slots = 2;
  // Blocks an instance's pool lends beyond each pipe's own one (0: no
  // pool, each pipe owns `slots` blocks).
  std::size_t pool_blocks = 0;
  std::size_t chunks_of(std::size_t bytes) const { return (bytes + chunk_bytes - 1) / chunk_bytes; }
};

// What a pipe needs beside the device: the host transport between the same
// ranks (its p2p moves host memory), the message's shape, and the pool its
// blocks beyond the first come from (null: the pipe owns `slots` blocks).
struct PipeSetup {
  Backend& backend;
  cct_transport_instance* host;
  StagingShape shape;
  PinnedPool* pool = nullptr;
};

class Pipe {
 public:
  explicit Pipe(const PipeSetup& setup);
  virtual ~Pipe() = default;
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;

  // Takes every step that can be taken now; true when one was. Throws
  // sdk::TransportError when the host transport failed, Error when the
  // device did.
  virtual bool progress() = 0;
  bool finished() const { return finished_ == chunks_; }
  // Where the message stands, for a timeout's reason.
  virtual std::string describe() const = 0;

 protected:
  void begin(cct_memory_kind kind, std::size_t bytes, int peer, uint32_t tag);
  std::size_t offset_of(std::size_t chunk) const { return chunk * setup_.shape.chunk_bytes; }
  std::size_t bytes_of(std::size_t chunk) const;
  std::size_t slot_of(std::size_t chunk) const { return chunk % slots(); }
  std::size_t slots() const { return events_.size(); }
  unsigned char* staging(std::size_t chunk) const { return blocks_[slot_of(chunk)]; }
  // Gives the chunk a block (its own first, else the pool's); false where
  // none is free now. release() returns it.
  bool acquire(std::size_t chunk);
  void release(std::size_t chunk);
  bool transferred(std::size_t chunk);  // the chunk's host message completed

  PipeSetup setup_;
  std::size_t own_blocks_;                // how many it owns (once needed)
  std::deque<Buffer> own_;                // the pipe's blocks
  std::vector<unsigned char*> own_free_;  // those no chunk holds
  std::vector<unsigned char*> blocks_;    // per slot: the block its chunk holds
  UniqueStream stream_;
  std::deque<UniqueEvent> events_;     // per slot: its last device copy
  std::vector<cct_request> requests_;  // per slot: its last host message
  bool on_device_ = false;             // the message's memory; host memory is not staged
  std::size_t bytes_ = 0;
  int peer_ = 0;
  uint32_t tag_ = 0;
  std::size_t chunks_ = 0;
  std::size_t finished_ = 0;  // chunks whose slot is free again
};

// device -> pinned -> host transport (host memory: -> host transport).
class SendPipe final : public Pipe {
 public:
  using Pipe::Pipe;
  // `kind`: where src is. Device memory must hold its final bytes:
  // everything that writes it completed (not merely enqueued on another
  // stream).
  void start(const void* src, cct_memory_kind kind, std::size_t bytes, int peer, uint32_t tag);
  bool progress() override;
  std::string describe() const override;

 private:
  const unsigned char* src_ = nullptr;
  std::size_t ready_ = 0;  // chunks copied off the device (enqueued), or in host memory
  std::size_t sent_ = 0;   // chunks whose host message was posted
};

// host transport -> pinned -> device (host memory: host transport ->).
class RecvPipe final : public Pipe {
 public:
  using Pipe::Pipe;
  // `kind`: where dst is. Once finished(), dst holds the message.
  void start(void* dst, cct_memory_kind kind, std::size_t bytes, int peer, uint32_t tag);
  bool progress() override;
  std::string describe() const override;

 private:
  unsigned char* dst_ = nullptr;
  std::size_t posted_ = 0;    // chunks whose host receive was posted
  std::size_t unstaged_ = 0;  // chunks whose host-device copy was enqueued
};

// Progresses every pipe until all are finished, backing off (and yielding
// the core) while none can move. With timeout_s > 0, a wait that long
// without progress throws sdk::TransportError(CCT_ERR_TIMEOUT) naming
// where each unfinished pipe stands.
void drive(std::initializer_list<Pipe*> pipes, double timeout_s);

}  // namespace cct::device
