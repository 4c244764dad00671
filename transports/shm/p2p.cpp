// Point-to-point messages over the segment's channels (see p2p.hpp).
#include "p2p.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <new>

#include "cma.hpp"
#include "shared_copy.hpp"
#include "stall.hpp"
#include "wait.hpp"

namespace cct::shm {
namespace {

Op* op_of(cct_request* req) {
  return std::launder(reinterpret_cast<Op*>(req->opaque));
}

const char* verb(const Op& op) {
  return op.kind == Op::kSend ? "send to" : "receive from";
}

}  // namespace

void OpQueue::push(Op* op) {
  if (count_ == ring_.size()) {
    std::vector<Op*> bigger(2 * ring_.size());
    for (std::size_t i = 0; i < count_; ++i) bigger[i] = ring_[(head_ + i) & (ring_.size() - 1)];
    ring_.swap(bigger);
    head_ = 0;
  }
  ring_[(head_ + count_++) & (ring_.size() - 1)] = op;
}

void OpQueue::pop() {
  head_ = (head_ + 1) & (ring_.size() - 1);
  --count_;
}

void OpQueue::remove(Op* op) {
  std::size_t mask = ring_.size() - 1;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < count_; ++i) {
    Op* other = ring_[(head_ + i) & mask];
    if (other != op) ring_[(head_ + kept++) & mask] = other;
  }
  count_ = kept;
}

P2p::P2p(const SegmentView& segment, int rank, P2pConfig config, cct_error* last_error)
    : segment_(segment),
      rank_(rank),
      last_error_(last_error),
      config_(std::move(config)),
      peers_(segment.layout().size) {
  for (int p = 0; p < segment.layout().size; ++p) {
    peers_[p].out = segment.channel(rank, p);
    peers_[p].in = segment.channel(p, rank);
  }
}

// The p2p table has no error out-parameter: the reason goes to the
// instance's last_error and the status to the caller.
cct_status P2p::fail(Op& op, cct_status status, const char* format, ...) {
  op.state = Op::kFailed;
  op.status = status;
  va_list args;
  va_start(args, format);
  std::vsnprintf(last_error_->message, sizeof last_error_->message, format, args);
  va_end(args);
  return status;
}

cct_status P2p::isend(const void* buf, std::size_t bytes, int peer, uint32_t tag,
                      cct_request* req) {
  if (req == nullptr) return CCT_ERR_INVALID_ARG;
  char* data = const_cast<char*>(static_cast<const char*>(buf));
  Op* op =
      new (req->opaque) Op{Op::kSend, Op::kQueued, false, CCT_OK, peer, tag, data, bytes, 0, 0};
  return post(op, &Peer::sends);
}

cct_status P2p::irecv(void* buf, std::size_t bytes, int peer, uint32_t tag, cct_request* req) {
  if (req == nullptr) return CCT_ERR_INVALID_ARG;
  char* data = static_cast<char*>(buf);
  Op* op =
      new (req->opaque) Op{Op::kRecv, Op::kQueued, false, CCT_OK, peer, tag, data, bytes, 0, 0};
  return post(op, &Peer::recvs);
}

cct_status P2p::post(Op* op, OpQueue Peer::*queue) {
  int size = static_cast<int>(peers_.size());
  if (op->peer < 0 || op->peer >= size)
    return fail(*op, CCT_ERR_INVALID_ARG, "%s rank %d: no such rank among %d", verb(*op), op->peer,
                size);
  if (op->buf == nullptr && op->bytes > 0)
    return fail(*op, CCT_ERR_INVALID_ARG, "%s rank %d: null buffer for %zu bytes", verb(*op),
                op->peer, op->bytes);
  Peer& peer = peers_[op->peer];
  (peer.*queue).push(op);
  if (!peer.active) {
    peer.active = true;
    active_.push_back(op->peer);
  }
  return CCT_OK;
}

cct_status P2p::test(cct_request* req, int* done) {
  if (req == nullptr || done == nullptr) return CCT_ERR_INVALID_ARG;
  progress();
  Op& op = *op_of(req);
  *done = complete(op) ? 1 : 0;
  return op.state == Op::kFailed ? op.status : CCT_OK;
}

// On the first failed request the call returns its status; the requests of
// the call still queued are withdrawn, so that none is left pointing into
// storage the caller is about to release.
cct_status P2p::waitall(cct_request* reqs, std::size_t count) {
  if (reqs == nullptr && count > 0) return CCT_ERR_INVALID_ARG;
  Backoff backoff(config_.waits);
  std::size_t first = 0;  // requests before it completed
  for (;;) {
    bool moved = progress();
    bool all = true;
    for (std::size_t i = first; i < count; ++i) {
      Op& op = *op_of(&reqs[i]);
      if (!complete(op)) {
        all = false;
      } else if (op.state == Op::kFailed) {
        cancel_pending(reqs, count);
        return op.status;
      } else if (all) {
        first = i + 1;
      }
    }
    if (all) return CCT_OK;
    if (moved) {
      backoff.reset();
    } else if (!backoff.pause()) {
      return timed_out(reqs, count);
    }
  }
}

// The peers of the requests still incomplete are the ones this rank waited
// for. Queued requests are withdrawn as on a failure; posted ones cannot
// be, but the runtime uses the communicator no more after a timeout.
cct_status P2p::timed_out(cct_request* reqs, std::size_t count) {
  std::vector<int> awaited;
  for (std::size_t i = 0; i < count; ++i) {
    const Op& op = *op_of(&reqs[i]);
    if (op.state != Op::kDone &&
        std::find(awaited.begin(), awaited.end(), op.peer) == awaited.end())
      awaited.push_back(op.peer);
  }
  cancel_pending(reqs, count);
  const std::string why = stall_report(config_.waits.timeout_s, awaited, segment_, config_.pids);
  std::snprintf(last_error_->message, sizeof last_error_->message, "%s", why.c_str());
  return CCT_ERR_TIMEOUT;
}

void P2p::cancel_pending(cct_request* reqs, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    Op& op = *op_of(&reqs[i]);
    if (op.state != Op::kQueued) continue;
    Peer& peer = peers_[op.peer];
    (op.kind == Op::kSend ? peer.sends : peer.recvs).remove(&op);
    op.state = Op::kFailed;
    op.status = CCT_ERR_TRANSPORT;
  }
}

bool P2p::complete(Op& op) {
  if (op.state == Op::kPosted) {
    if (load_acquire(peers_[op.peer].out.tail) > op.seq)
      op.state = Op::kDone;
    else if (shares_copy(op))
      help_copy(op);
  }
  return op.state == Op::kDone || op.state == Op::kFailed;
}

bool P2p::shares_copy(const Op& op) const {
  return op.peer != rank_ && shared_copy_applies(op.bytes);
}

// The sender's part of a shared copy (shared_copy.hpp), once the receiver
// has published its buffer. The slot is still this message's: only the
// receiver frees it, after every piece is done, and only this rank reuses it.
void P2p::help_copy(Op& op) {
  SlotHeader* slot = segment_.slot(peers_[op.peer].out, op.seq);
  const uint64_t to = load_acquire(&slot->recv_address);
  if (to == 0) return;
  const pid_t pid = config_.pids[op.peer];
  const int error = copy_claimed_pieces(slot, op.bytes, [&](std::size_t offset, std::size_t n) {
    return cma_write(pid, to + offset, op.buf + offset, n);
  });
  if (error != 0) store_release(&slot->write_error, static_cast<uint64_t>(error));
}

bool P2p::progress() {
  bool moved = false;
  for (std::size_t i = 0; i < active_.size();) {
    Peer& peer = peers_[active_[i]];
    moved = progress_sends(peer) | moved;
    moved = progress_recvs(peer) | moved;
    if (!peer.sends.empty() || !peer.recvs.empty()) {
      ++i;
      continue;
    }
    peer.active = false;
    active_[i] = active_.back();
    active_.pop_back();
  }
  return moved;
}

bool P2p::progress_sends(Peer& peer) {
  bool moved = false;
  while (!peer.sends.empty() && out_slot_free(peer)) {
    Op& op = *peer.sends.front();
    bool single_copy = op.bytes >= config_.threshold && (config_.single_copy || op.peer == rank_);
    if (single_copy) {
      post_single_copy(peer, op);
    } else {
      write_fragment(peer, op);
    }
    if (op.state != Op::kQueued) peer.sends.pop();
    moved = true;
  }
  return moved;
}

bool P2p::progress_recvs(Peer& peer) {
  bool moved = false;
  while (!peer.recvs.empty() && in_slot_ready(peer)) {
    Op& op = *peer.recvs.front();
    SlotHeader* slot = segment_.slot(peer.in, peer.in_tail);
    if (op.started || check_match(op, *slot)) {
      if (slot->kind == kSingleCopy) {
        read_single_copy(peer, op, slot);
      } else {
        read_fragment(peer, op, slot);
      }
    }
    if (op.state != Op::kQueued) peer.recvs.pop();
    moved = true;
  }
  return moved;
}

// The cached tail is refreshed only when the ring looks full, so a sender
// streaming into a ring with room never touches the receiver's line.
bool P2p::out_slot_free(Peer& peer) {
  std::size_t slots = segment_.layout().slots;
  if (peer.out_head - peer.out_tail < slots) return true;
  peer.out_tail = load_acquire(peer.out.tail);
  return peer.out_head - peer.out_tail < slots;
}

bool P2p::in_slot_ready(Peer& peer) {
  if (peer.in_tail < peer.in_head) return true;
  peer.in_head = load_acquire(peer.in.head);
  return peer.in_tail < peer.in_head;
}

void P2p::write_fragment(Peer& peer, Op& op) {
  SlotHeader* slot = segment_.slot(peer.out, peer.out_head);
  std::size_t n = std::min(segment_.layout().slot_payload, op.bytes - op.pos);
  slot->kind = op.started ? kEagerNext : kEagerFirst;
  slot->tag = op.tag;
  slot->msg_bytes = op.bytes;
  if (n > 0) std::memcpy(SegmentView::payload(slot), op.buf + op.pos, n);
  op.pos += n;
  op.started = true;
  store_release(peer.out.head, ++peer.out_head);
  if (op.pos == op.bytes) op.state = Op::kDone;
}

void P2p::post_single_copy(Peer& peer, Op& op) {
  SlotHeader* slot = segment_.slot(peer.out, peer.out_head);
  slot->kind = kSingleCopy;
  slot->tag = op.tag;
  slot->msg_bytes = op.bytes;
  slot->address = reinterpret_cast<uint64_t>(op.buf);
  slot->recv_address = 0;
  slot->pieces_claimed = 0;
  slot->pieces_done = 0;
  slot->write_error = 0;
  op.seq = peer.out_head;
  op.started = true;
  op.state = Op::kPosted;
  store_release(peer.out.head, ++peer.out_head);
}

bool P2p::check_match(Op& op, const SlotHeader& slot) {
  if (slot.kind == kEagerNext) {
    fail(op, CCT_ERR_INTERNAL, "receive from rank %d: channel out of step (a message was cut)",
         op.peer);
    return false;
  }
  if (slot.tag == op.tag && slot.msg_bytes == op.bytes) return true;
  fail(op, CCT_ERR_INVALID_ARG,
       "receive from rank %d posted for tag %u and %zu bytes, but the next message from that rank "
       "has tag %u and %llu bytes (messages match in posting order; tags and sizes must agree)",
       op.peer, op.tag, op.bytes, slot.tag, static_cast<unsigned long long>(slot.msg_bytes));
  return false;
}

void P2p::read_fragment(Peer& peer, Op& op, SlotHeader* slot) {
  std::size_t n = std::min(segment_.layout().slot_payload, op.bytes - op.pos);
  if (n > 0) std::memcpy(op.buf + op.pos, SegmentView::payload(slot), n);
  op.pos += n;
  op.started = true;
  store_release(peer.in.tail, ++peer.in_tail);
  if (op.pos == op.bytes) op.state = Op::kDone;
}

// The slot is released even when the read fails, so the sender is not left
// waiting forever; the receive reports the failure.
void P2p::read_single_copy(Peer& peer, Op& op, SlotHeader* slot) {
  int error = shares_copy(op) ? read_shared(op, slot)
                              : cma_read(config_.pids[op.peer], slot->address, op.buf, op.bytes);
  op.started = true;
  store_release(peer.in.tail, ++peer.in_tail);
  if (error == 0) {
    op.state = Op::kDone;
    return;
  }
  fail(op, error == ETIMEDOUT ? CCT_ERR_TIMEOUT : CCT_ERR_TRANSPORT,
       "receive from rank %d: copying %zu bytes across processes: %s", op.peer, op.bytes,
       std::strerror(error));
}

// The receiver's part of a shared copy: publish the buffer, copy pieces,
// wait for the pieces the sender claimed (it is copying them right now).
int P2p::read_shared(Op& op, SlotHeader* slot) {
  store_release(&slot->recv_address, reinterpret_cast<uint64_t>(op.buf));
  const pid_t pid = config_.pids[op.peer];
  const int error = copy_claimed_pieces(slot, op.bytes, [&](std::size_t offset, std::size_t n) {
    return cma_read(pid, slot->address + offset, op.buf + offset, n);
  });
  // The sender copies its claimed pieces right now; one that died or hung
  // mid-piece fails the receive after the timeout.
  if (!wait_for(&slot->pieces_done, shared_copy_pieces(op.bytes), CCT_WAIT_GE, config_.waits))
    return ETIMEDOUT;
  return error != 0 ? error : static_cast<int>(load_acquire(&slot->write_error));
}

}  // namespace cct::shm
