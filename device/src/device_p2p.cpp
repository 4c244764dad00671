#include "cct/device/device_p2p.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "cct/sdk/comm.hpp"

namespace cct::device {

// One message and the pipe that may move it; kept for the next message
// once complete (its pinned slots are the costly part).
struct DeviceP2p::Op {
  enum class State { idle, queued, started, complete };
  // What a message through the mailbox waits for, beside its pipe.
  enum class Wait { none, offer, answer, copy };
  Op(const PipeSetup& setup, bool is_send)
      : send(is_send),
        chunk(setup.shape.chunk_bytes),
        pipe(is_send ? std::unique_ptr<Pipe>(std::make_unique<SendPipe>(setup))
                     : std::unique_ptr<Pipe>(std::make_unique<RecvPipe>(setup))) {}

  bool send;
  std::size_t chunk;  // its pipe's, for good
  std::unique_ptr<Pipe> pipe;
  State state = State::idle;
  // The message, from the post until it starts.
  void* buf = nullptr;
  cct_memory_kind kind = CCT_MEMORY_HOST;
  cct_memory_region region{};  // where buf is (its allocation, for an IPC offer)
  std::size_t bytes = 0;
  int peer = 0;
  uint32_t tag = 0;
  // Once started.
  Wait wait = Wait::none;
  bool staging = false;                 // the pipe was started
  uint64_t seq = 0;                     // the message's number in the mailbox
  std::unique_ptr<UniqueEvent> copied;  // a receive's copy by IPC, made on first use

  bool finished() const { return wait == Wait::none && (!staging || pipe->finished()); }
  // Where it stands, for a timeout's reason.
  std::string describe() const {
    const std::string what = std::string(send ? "a send of " : "a receive of ") +
                             std::to_string(bytes) + " bytes " + (send ? "to" : "from") + " rank " +
                             std::to_string(peer);
    switch (wait) {
      case Wait::offer: return what + " waiting for its offer (IPC or staged)";
      case Wait::answer:
        return what + " waiting for rank " + std::to_string(peer) + " to take it" +
               (staging ? " (staged: " + pipe->describe() + ")" : " by IPC");
      case Wait::copy: return what + " copying out of the sender's device memory (IPC)";
      case Wait::none: break;
    }
    return pipe->describe();
  }
};

// A request holds its op's address (cct_request is the caller's storage).
DeviceP2p::Op* DeviceP2p::op_of(const cct_request* req) {
  Op* op = nullptr;
  std::memcpy(&op, req->opaque, sizeof op);
  return op;
}

void DeviceP2p::bind(cct_request* req, Op* op) {
  std::memcpy(req->opaque, &op, sizeof op);
}

DeviceP2p::DeviceP2p(Backend& backend, cct_transport_instance* host, StagingShape shape, bool ipc,
                     double timeout_s)
    : setup_{backend, host, shape},
      timeout_s_(timeout_s),
      pid_(static_cast<int32_t>(getpid())),
      chunk_(shape.chunk_bytes),
      mailbox_(ipc && host->shm != nullptr ? std::make_unique<PeerMailbox>(host) : nullptr),
      offered_(host->size),
      taken_(host->size),
      mappings_(backend, host->size),
      sends_(host->size),
      recvs_(host->size) {}

DeviceP2p::~DeviceP2p() = default;

cct_status DeviceP2p::fail(cct_status status, const std::string& why) {
  error_ = why;
  return status;
}

void DeviceP2p::set_chunk(std::size_t chunk_bytes) {
  chunk_ = chunk_bytes > 0 ? chunk_bytes : setup_.shape.chunk_bytes;
}

// An idle op of the current chunk size, or a new one, whose pipe borrows
// from the pool of that size.
DeviceP2p::Op* DeviceP2p::take_op(bool send) {
  std::vector<Op*>& idle = send ? idle_sends_ : idle_recvs_;
  const auto found =
      std::find_if(idle.begin(), idle.end(), [&](const Op* op) { return op->chunk == chunk_; });
  if (found != idle.end()) {
    Op* op = *found;
    idle.erase(found);
    return op;
  }
  PipeSetup setup = setup_;
  setup.shape.chunk_bytes = chunk_;
  if (setup_.shape.pool_blocks > 0) {
    std::unique_ptr<PinnedPool>& pool = pools_[chunk_];
    if (!pool)
      pool = std::make_unique<PinnedPool>(setup_.backend, chunk_, setup_.shape.pool_blocks);
    setup.pool = pool.get();
  }
  ops_.push_back(std::make_unique<Op>(setup, send));
  return ops_.back().get();
}

cct_status DeviceP2p::post(bool send, void* buf, std::size_t bytes, int peer, uint32_t tag,
                           cct_request* req) {
  if (req == nullptr) return fail(CCT_ERR_INVALID_ARG, "null request");
  if (peer < 0 || peer >= static_cast<int>(sends_.size()))
    return fail(CCT_ERR_INVALID_ARG,
                "peer " + std::to_string(peer) + " of " + std::to_string(sends_.size()) + " ranks");
  if (buf == nullptr && bytes > 0)
    return fail(CCT_ERR_INVALID_ARG, "null buffer for " + std::to_string(bytes) + " bytes");
  try {
    Op* op = take_op(send);
    op->buf = buf;
    op->region = bytes > 0 ? setup_.backend.locate(buf) : cct_memory_region{};
    op->kind = op->region.kind;
    op->bytes = bytes;
    op->peer = peer;
    op->tag = tag;
    op->state = Op::State::queued;
    (send ? sends_ : recvs_)[peer].push_back(op);
    bind(req, op);
  } catch (const std::exception& e) {
    return fail(CCT_ERR_TRANSPORT, e.what());
  }
  return CCT_OK;
}

cct_status DeviceP2p::isend(const void* buf, std::size_t bytes, int peer, uint32_t tag,
                            cct_request* req) {
  return post(true, const_cast<void*>(buf), bytes, peer, tag, req);
}

cct_status DeviceP2p::irecv(void* buf, std::size_t bytes, int peer, uint32_t tag,
                            cct_request* req) {
  return post(false, buf, bytes, peer, tag, req);
}

void DeviceP2p::start_pipe(Op& op) {
  if (op.send)
    static_cast<SendPipe&>(*op.pipe).start(op.buf, op.kind, op.bytes, op.peer, op.tag);
  else
    static_cast<RecvPipe&>(*op.pipe).start(op.buf, op.kind, op.bytes, op.peer, op.tag);
  op.staging = true;
}

// Without the mailbox (or bytes to move), a message is staged at once. With
// it, a send offers itself, staging at once where it offers staging; a
// receive waits for the offer.
void DeviceP2p::start(Op& op) {
  op.state = Op::State::started;
  op.staging = false;
  op.wait = Op::Wait::none;
  if (!mailbox_ || op.bytes == 0) return start_pipe(op);
  if (!op.send) {
    op.seq = ++taken_[op.peer];
    op.wait = Op::Wait::offer;
    return;
  }
  op.seq = ++offered_[op.peer];
  const Offer offer = offer_for(op);
  mailbox_->offer(op.peer, op.seq, offer);
  op.wait = Op::Wait::answer;
  if (offer.way == Offer::Way::staged) start_pipe(op);
}

// IPC where the message is in device memory whose allocation the backend
// knows and exports; staged otherwise.
Offer DeviceP2p::offer_for(const Op& op) {
  Offer offer;
  offer.tag = op.tag;
  offer.bytes = op.bytes;
  offer.pid = pid_;
  offer.address = reinterpret_cast<uintptr_t>(op.buf);
  if (op.kind != CCT_MEMORY_DEVICE || op.region.bytes == 0) return offer;
  try {
    offer.handle = setup_.backend.export_memory(op.region.base);
  } catch (const Error&) {
    return offer;  // the receiver says nothing of it: the sender's own limit
  }
  offer.way = Offer::Way::ipc;
  offer.offset = offer.address - reinterpret_cast<uintptr_t>(op.region.base);
  return offer;
}

void DeviceP2p::take(Op& op, const Offer& offer) {
  if (offer.bytes != op.bytes || offer.tag != op.tag) {
    mailbox_->answer(op.peer, op.seq, Answer::mismatch);
    throw sdk::TransportError(
        CCT_ERR_INVALID_ARG, "a receive from rank " + std::to_string(op.peer) + " posted for tag " +
                                 std::to_string(op.tag) + " and " + std::to_string(op.bytes) +
                                 " bytes met a message of tag " + std::to_string(offer.tag) +
                                 " and " + std::to_string(offer.bytes) + " bytes");
  }
  if (offer.way == Offer::Way::ipc) {
    try {
      const void* src = mappings_.source(op.peer, offer);
      const cct_copy_kind kind =
          op.kind == CCT_MEMORY_DEVICE ? CCT_COPY_DEVICE_TO_DEVICE : CCT_COPY_DEVICE_TO_HOST;
      setup_.backend.copy(op.buf, src, op.bytes, kind, ipc_stream());
      if (!op.copied) op.copied = std::make_unique<UniqueEvent>(setup_.backend);
      setup_.backend.record(op.copied->get(), ipc_stream());
      op.wait = Op::Wait::copy;
      return;
    } catch (const Error& e) {
      if (ipc_refusal_.empty())
        ipc_refusal_ = "from rank " + std::to_string(op.peer) + ": " + e.what();
    }
  }
  mailbox_->answer(op.peer, op.seq, Answer::staged);
  op.wait = Op::Wait::none;
  start_pipe(op);
}

Stream DeviceP2p::ipc_stream() {
  if (!ipc_stream_) ipc_stream_ = std::make_unique<UniqueStream>(setup_.backend);
  return ipc_stream_->get();
}

bool DeviceP2p::advance(Op& op) {
  bool moved = false;
  switch (op.wait) {
    case Op::Wait::offer:
      if (const auto offer = mailbox_->offer_from(op.peer, op.seq)) {
        take(op, *offer);
        moved = true;
      }
      break;
    case Op::Wait::answer:
      if (const auto answer = mailbox_->answer_from(op.peer, op.seq)) {
        if (*answer == Answer::mismatch)
          throw sdk::TransportError(
              CCT_ERR_INVALID_ARG, "a send to rank " + std::to_string(op.peer) + " of tag " +
                                       std::to_string(op.tag) + " and " + std::to_string(op.bytes) +
                                       " bytes met a receive posted for another tag or size");
        op.wait = Op::Wait::none;
        if (*answer == Answer::staged && !op.staging) start_pipe(op);
        moved = true;
      }
      break;
    case Op::Wait::copy:
      if (setup_.backend.done(op.copied->get())) {
        mailbox_->answer(op.peer, op.seq, Answer::copied);
        op.wait = Op::Wait::none;
        moved = true;
      }
      break;
    case Op::Wait::none: break;
  }
  if (op.staging) moved = op.pipe->progress() || moved;
  return moved;
}

bool DeviceP2p::progress(Queue& queue) {
  bool moved = false;
  while (!queue.empty()) {
    Op& head = *queue.front();
    if (head.state == Op::State::queued) {
      start(head);
      moved = true;
    }
    moved = advance(head) || moved;
    if (!head.finished()) break;
    if (!head.send) ++(head.staging ? received_.staged : received_.copied);
    head.state = Op::State::complete;
    queue.pop_front();
  }
  return moved;
}

bool DeviceP2p::progress() {
  bool moved = false;
  for (std::size_t peer = 0; peer < sends_.size(); ++peer) {
    moved = progress(sends_[peer]) || moved;
    moved = progress(recvs_[peer]) || moved;
  }
  return moved;
}

cct_status DeviceP2p::test(cct_request* req, int* done) {
  if (req == nullptr || done == nullptr) return fail(CCT_ERR_INVALID_ARG, "null request or flag");
  try {
    progress();
  } catch (const sdk::TransportError& e) {
    return fail(e.status, e.what());
  } catch (const std::exception& e) {
    return fail(CCT_ERR_TRANSPORT, e.what());
  }
  Op* op = op_of(req);
  *done = op->state == Op::State::complete;
  if (*done) release(*op);
  return CCT_OK;
}

void DeviceP2p::release(Op& op) {
  op.state = Op::State::idle;
  (op.send ? idle_sends_ : idle_recvs_).push_back(&op);
}

std::string DeviceP2p::pending() const {
  std::string why;
  for (const auto& queues : {&sends_, &recvs_})
    for (const Queue& queue : *queues)
      for (const Op* op : queue)
        if (op->state == Op::State::started)
          why += (why.empty() ? "" : "; ") + op->describe();
        else
          why += std::string(why.empty() ? "" : "; ") +
                 (op->send ? "a send to" : "a receive from") + " rank " + std::to_string(op->peer) +
                 " waiting for the one before it";
  return why;
}

cct_status DeviceP2p::waitall(cct_request* reqs, std::size_t count) {
  if (reqs == nullptr && count > 0) return fail(CCT_ERR_INVALID_ARG, "null requests");
  sdk::Backoff backoff(kPipeWaits, timeout_s_);
  try {
    for (;;) {
      const bool moved = progress();
      bool all = true;
      for (std::size_t i = 0; i < count && all; ++i)
        all = op_of(&reqs[i])->state == Op::State::complete;
      if (all) break;
      if (moved)
        backoff.reset();
      else if (!backoff.pause())
        return fail(CCT_ERR_TIMEOUT,
                    "no progress for " + std::to_string(timeout_s_) + " s: " + pending());
    }
  } catch (const sdk::TransportError& e) {
    return fail(e.status, e.what());
  } catch (const std::exception& e) {
    return fail(CCT_ERR_TRANSPORT, e.what());
  }
  for (std::size_t i = 0; i < count; ++i) release(*op_of(&reqs[i]));
  return CCT_OK;
}

}  // namespace cct::device
