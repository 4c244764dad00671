// Point-to-point messages over the channels of the segment.
//
// Matching is FIFO per ordered pair: the ABI matches a sender's and a
// receiver's operations in posting order and demands equal tags, so the
// n-th message a channel carries belongs to the n-th receive posted for
// that peer, and its tag and size only need checking, never searching.
// That is what lets a channel be a plain single-producer ring.
//
// isend / irecv only queue the operation (in the caller's cct_request: no
// allocation per message) on a per-peer queue of the instance. All data
// moves in test / waitall, which progress every queued operation of the
// instance, in both directions: two ranks sending each other messages
// larger than a ring both drain each other's rings and cannot deadlock.
//
// A message below the single-copy threshold is copied into slots by the
// sender and out of them by the receiver, a fragment per slot, so a long
// one is pipelined through the ring. A larger one (when CMA works, or
// always to oneself) takes one slot holding its address; the receiver
// reads it directly, then frees the slot, which completes the send. From
// two pieces on, the sender copies pieces too while it waits
// (shared_copy.hpp).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cct/abi/transport.h"
#include "layout.hpp"
#include "wait.hpp"

namespace cct::shm {

// One operation, stored in the caller's cct_request.
struct Op {
  enum Kind : uint8_t { kSend, kRecv };
  enum State : uint8_t { kQueued, kPosted, kDone, kFailed };

  Kind kind;
  State state;
  bool started;  // its first fragment was written / read
  cct_status status;
  int32_t peer;
  uint32_t tag;
  char* buf;
  std::size_t bytes;
  std::size_t pos;  // bytes moved so far
  uint64_t seq;     // kPosted sends: the slot whose release completes it
};
static_assert(sizeof(Op) <= sizeof(cct_request), "an Op must fit in a cct_request");

// A FIFO of pending operations, one per peer and direction. Its capacity
// doubles when full: the allocation happens only when a peer has more
// operations pending than ever before, never per message.
class OpQueue {
 public:
  OpQueue() : ring_(kInitialCapacity) {}
  bool empty() const { return count_ == 0; }
  Op* front() const { return ring_[head_]; }
  void push(Op* op);
  void pop();
  void remove(Op* op);

 private:
  static constexpr std::size_t kInitialCapacity = 64;
  std::vector<Op*> ring_;
  std::size_t head_ = 0;
  std::size_t count_ = 0;
};

struct P2pConfig {
  bool single_copy = false;                       // CMA works between every pair
  std::size_t threshold = std::size_t{32} << 10;  // single copy from here on
  WaitPolicy waits;
  std::vector<pid_t> pids;  // per rank
};

class P2p {
 public:
  // Failures write their reason to *last_error (the instance's).
  P2p(const SegmentView& segment, int rank, P2pConfig config, cct_error* last_error);

  cct_status isend(const void* buf, std::size_t bytes, int peer, uint32_t tag, cct_request* req);
  cct_status irecv(void* buf, std::size_t bytes, int peer, uint32_t tag, cct_request* req);
  cct_status test(cct_request* req, int* done);
  cct_status waitall(cct_request* reqs, std::size_t count);

 private:
  // The state of this rank's end of the channels with one peer.
  struct Peer {
    OpQueue sends;
    OpQueue recvs;
    ChannelRef out;         // this rank -> peer
    ChannelRef in;          // peer -> this rank
    uint64_t out_head = 0;  // fragments written (this rank's copy)
    uint64_t out_tail = 0;  // fragments the peer consumed, as last read
    uint64_t in_tail = 0;   // fragments consumed (this rank's copy)
    uint64_t in_head = 0;   // fragments the peer wrote, as last read
    bool active = false;    // listed in active_
  };

  cct_status post(Op* op, OpQueue Peer::*queue);
  bool progress();
  bool progress_sends(Peer& peer);
  bool progress_recvs(Peer& peer);
  bool out_slot_free(Peer& peer);
  bool in_slot_ready(Peer& peer);
  void write_fragment(Peer& peer, Op& op);
  void post_single_copy(Peer& peer, Op& op);
  void read_fragment(Peer& peer, Op& op, SlotHeader* slot);
  void read_single_copy(Peer& peer, Op& op, SlotHeader* slot);
  bool check_match(Op& op, const SlotHeader& slot);
  bool complete(Op& op);
  bool shares_copy(const Op& op) const;
  void help_copy(Op& op);
  int read_shared(Op& op, SlotHeader* slot);
  void cancel_pending(cct_request* reqs, std::size_t count);
  cct_status timed_out(cct_request* reqs, std::size_t count);
  cct_status fail(Op& op, cct_status status, const char* format, ...)
      __attribute__((format(printf, 4, 5)));

  SegmentView segment_;
  int rank_;
  cct_error* last_error_;
  P2pConfig config_;
  std::vector<Peer> peers_;
  std::vector<int> active_;  // peers with queued operations
};

}  // namespace cct::shm
