#include "cct/device/staged_p2p.hpp"

#include <cstring>

#include "cct/sdk/comm.hpp"

namespace cct::device {

// One message and the pipe that moves it; kept for the next message once
// complete (its pinned slots are the costly part).
struct StagedP2p::Op {
  enum class State { idle, queued, started, complete };
  Op(const PipeSetup& setup, bool is_send)
      : send(is_send),
        pipe(is_send ? std::unique_ptr<Pipe>(std::make_unique<SendPipe>(setup))
                     : std::unique_ptr<Pipe>(std::make_unique<RecvPipe>(setup))) {}

  bool send;
  std::unique_ptr<Pipe> pipe;
  State state = State::idle;
  // The message, from the post until it starts.
  void* buf = nullptr;
  cct_memory_kind kind = CCT_MEMORY_HOST;
  std::size_t bytes = 0;
  int peer = 0;
  uint32_t tag = 0;
};

// A request holds its op's address (cct_request is the caller's storage).
StagedP2p::Op* StagedP2p::op_of(const cct_request* req) {
  Op* op = nullptr;
  std::memcpy(&op, req->opaque, sizeof op);
  return op;
}

void StagedP2p::bind(cct_request* req, Op* op) {
  std::memcpy(req->opaque, &op, sizeof op);
}

StagedP2p::StagedP2p(Backend& backend, cct_transport_instance* host, StagingShape shape,
                     double timeout_s)
    : setup_{backend, host, shape},
      timeout_s_(timeout_s),
      sends_(host->size),
      recvs_(host->size) {}

StagedP2p::~StagedP2p() = default;

cct_status StagedP2p::fail(cct_status status, const std::string& why) {
  error_ = why;
  return status;
}

StagedP2p::Op* StagedP2p::take_op(bool send) {
  std::vector<Op*>& idle = send ? idle_sends_ : idle_recvs_;
  if (!idle.empty()) {
    Op* op = idle.back();
    idle.pop_back();
    return op;
  }
  ops_.push_back(std::make_unique<Op>(setup_, send));
  return ops_.back().get();
}

cct_status StagedP2p::post(bool send, void* buf, std::size_t bytes, int peer, uint32_t tag,
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
    op->kind = bytes > 0 ? setup_.backend.kind_of(buf) : CCT_MEMORY_HOST;
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

cct_status StagedP2p::isend(const void* buf, std::size_t bytes, int peer, uint32_t tag,
                            cct_request* req) {
  return post(true, const_cast<void*>(buf), bytes, peer, tag, req);
}

cct_status StagedP2p::irecv(void* buf, std::size_t bytes, int peer, uint32_t tag,
                            cct_request* req) {
  return post(false, buf, bytes, peer, tag, req);
}

void StagedP2p::start(Op& op) {
  if (op.send)
    static_cast<SendPipe&>(*op.pipe).start(op.buf, op.kind, op.bytes, op.peer, op.tag);
  else
    static_cast<RecvPipe&>(*op.pipe).start(op.buf, op.kind, op.bytes, op.peer, op.tag);
  op.state = Op::State::started;
}

bool StagedP2p::progress(Queue& queue) {
  bool moved = false;
  while (!queue.empty()) {
    Op& head = *queue.front();
    if (head.state == Op::State::queued) {
      start(head);
      moved = true;
    }
    moved = head.pipe->progress() || moved;
    if (!head.pipe->finished()) break;
    head.state = Op::State::complete;
    queue.pop_front();
  }
  return moved;
}

bool StagedP2p::progress() {
  bool moved = false;
  for (std::size_t peer = 0; peer < sends_.size(); ++peer) {
    moved = progress(sends_[peer]) || moved;
    moved = progress(recvs_[peer]) || moved;
  }
  return moved;
}

cct_status StagedP2p::test(cct_request* req, int* done) {
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

void StagedP2p::release(Op& op) {
  op.state = Op::State::idle;
  (op.send ? idle_sends_ : idle_recvs_).push_back(&op);
}

std::string StagedP2p::pending() const {
  std::string why;
  for (const auto& queues : {&sends_, &recvs_})
    for (const Queue& queue : *queues)
      for (const Op* op : queue)
        if (op->state == Op::State::started)
          why += (why.empty() ? "" : "; ") + op->pipe->describe();
        else
          why += std::string(why.empty() ? "" : "; ") +
                 (op->send ? "a send to" : "a receive from") + " rank " + std::to_string(op->peer) +
                 " waiting for the one before it";
  return why;
}

cct_status StagedP2p::waitall(cct_request* reqs, std::size_t count) {
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
