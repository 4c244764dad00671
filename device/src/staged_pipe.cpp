#include "cct/device/staged_pipe.hpp"

#include <algorithm>
#include <stdexcept>

#include "cct/sdk/comm.hpp"

namespace cct::device {
namespace {

const StagingShape& checked(const StagingShape& shape) {
  if (shape.chunk_bytes == 0 || shape.slots < 1)
    throw std::invalid_argument("staging: chunk_bytes must be > 0 and slots >= 1 (got " +
                                std::to_string(shape.chunk_bytes) + " and " +
                                std::to_string(shape.slots) + ")");
  return shape;
}

}  // namespace

Pipe::Pipe(const PipeSetup& setup)
    : setup_{setup.backend, setup.host, checked(setup.shape), setup.pool},
      own_blocks_(setup.pool != nullptr ? 1 : static_cast<std::size_t>(setup.shape.slots)),
      blocks_(setup.shape.slots),
      stream_(setup.backend),
      requests_(setup.shape.slots) {
  for (int i = 0; i < setup.shape.slots; ++i) events_.emplace_back(setup.backend);
}

// The pipe's own blocks are allocated on first need: a pipe that only ever
// moves host memory (or whose messages go by IPC) pins nothing.
bool Pipe::acquire(std::size_t chunk) {
  unsigned char* block = nullptr;
  if (own_free_.empty() && own_.size() < own_blocks_) {
    own_.emplace_back(setup_.backend, Buffer::Kind::pinned, setup_.shape.chunk_bytes);
    own_free_.push_back(static_cast<unsigned char*>(own_.back().data()));
  }
  if (!own_free_.empty()) {
    block = own_free_.back();
    own_free_.pop_back();
  } else if (setup_.pool != nullptr) {
    block = static_cast<unsigned char*>(setup_.pool->try_take());
  }
  blocks_[slot_of(chunk)] = block;
  return block != nullptr;
}

void Pipe::release(std::size_t chunk) {
  unsigned char* block = blocks_[slot_of(chunk)];
  const bool owned =
      std::any_of(own_.begin(), own_.end(), [&](const Buffer& b) { return b.data() == block; });
  if (owned)
    own_free_.push_back(block);
  else
    setup_.pool->give_back(block);
}

void Pipe::begin(cct_memory_kind kind, std::size_t bytes, int peer, uint32_t tag) {
  if (!finished())
    throw std::logic_error("staging: a pipe started before its last message finished");
  on_device_ = kind == CCT_MEMORY_DEVICE;
  bytes_ = bytes;
  peer_ = peer;
  tag_ = tag;
  chunks_ = setup_.shape.chunks_of(bytes);
  finished_ = 0;
}

std::size_t Pipe::bytes_of(std::size_t chunk) const {
  return std::min(setup_.shape.chunk_bytes, bytes_ - offset_of(chunk));
}

bool Pipe::transferred(std::size_t chunk) {
  int done = 0;
  cct_transport_instance* host = setup_.host;
  sdk::check_status(host->p2p->test(host, &requests_[slot_of(chunk)], &done), "staging test", host);
  return done != 0;
}

// Three steps, each on chunks in order, each as far as it can go now:
// copy chunks off the device into free blocks, send those whose copy is
// done, and free the blocks of those whose message completed. A block is
// reused only once its message completed, and at most `slots` chunks are
// staged at once. A chunk in host memory is ready as it is.
void SendPipe::start(const void* src, cct_memory_kind kind, std::size_t bytes, int peer,
                     uint32_t tag) {
  begin(kind, bytes, peer, tag);
  src_ = static_cast<const unsigned char*>(src);
  ready_ = sent_ = 0;
}

bool SendPipe::progress() {
  bool moved = false;
  Backend& device = setup_.backend;
  for (; ready_ < chunks_ && ready_ - finished_ < slots(); ++ready_, moved = true) {
    if (!on_device_) continue;
    if (!acquire(ready_)) break;
    device.copy(staging(ready_), src_ + offset_of(ready_), bytes_of(ready_),
                CCT_COPY_DEVICE_TO_HOST, stream_.get());
    device.record(events_[slot_of(ready_)].get(), stream_.get());
  }
  cct_transport_instance* host = setup_.host;
  for (; sent_ < ready_ && (!on_device_ || device.done(events_[slot_of(sent_)].get()));
       ++sent_, moved = true) {
    const unsigned char* chunk = on_device_ ? staging(sent_) : src_ + offset_of(sent_);
    sdk::check_status(
        host->p2p->isend(host, chunk, bytes_of(sent_), peer_, tag_, &requests_[slot_of(sent_)]),
        "staging isend", host);
  }
  for (; finished_ < sent_ && transferred(finished_); ++finished_, moved = true)
    if (on_device_) release(finished_);
  return moved;
}

std::string SendPipe::describe() const {
  return "staged send of " + std::to_string(bytes_) + " bytes of " +
         (on_device_ ? "device" : "host") + " memory to rank " + std::to_string(peer_) + ": of " +
         std::to_string(chunks_) + " chunks, " + std::to_string(ready_) + " ready, " +
         std::to_string(sent_) + " sent, " + std::to_string(finished_) + " delivered";
}

// The mirror image: post receives into free blocks, copy onto the device
// those that arrived, and free the blocks whose copy is done. A chunk for
// host memory is received where it belongs.
void RecvPipe::start(void* dst, cct_memory_kind kind, std::size_t bytes, int peer, uint32_t tag) {
  begin(kind, bytes, peer, tag);
  dst_ = static_cast<unsigned char*>(dst);
  posted_ = unstaged_ = 0;
}

bool RecvPipe::progress() {
  bool moved = false;
  cct_transport_instance* host = setup_.host;
  for (; posted_ < chunks_ && posted_ - finished_ < slots(); ++posted_, moved = true) {
    if (on_device_ && !acquire(posted_)) break;
    unsigned char* chunk = on_device_ ? staging(posted_) : dst_ + offset_of(posted_);
    sdk::check_status(
        host->p2p->irecv(host, chunk, bytes_of(posted_), peer_, tag_, &requests_[slot_of(posted_)]),
        "staging irecv", host);
  }
  Backend& device = setup_.backend;
  for (; unstaged_ < posted_ && transferred(unstaged_); ++unstaged_, moved = true) {
    if (!on_device_) continue;
    device.copy(dst_ + offset_of(unstaged_), staging(unstaged_), bytes_of(unstaged_),
                CCT_COPY_HOST_TO_DEVICE, stream_.get());
    device.record(events_[slot_of(unstaged_)].get(), stream_.get());
  }
  for (; finished_ < unstaged_ && (!on_device_ || device.done(events_[slot_of(finished_)].get()));
       ++finished_, moved = true)
    if (on_device_) release(finished_);
  return moved;
}

std::string RecvPipe::describe() const {
  return "staged receive of " + std::to_string(bytes_) + " bytes into " +
         (on_device_ ? "device" : "host") + " memory from rank " + std::to_string(peer_) + ": of " +
         std::to_string(chunks_) + " chunks, " + std::to_string(posted_) + " posted, " +
         std::to_string(unstaged_) + " arrived (and copied onto the device, enqueued), " +
         std::to_string(finished_) + " complete";
}

void drive(std::initializer_list<Pipe*> pipes, double timeout_s) {
  sdk::Backoff backoff(kPipeWaits, timeout_s);
  for (;;) {
    bool moved = false;
    bool all = true;
    for (Pipe* pipe : pipes) {
      if (pipe->finished()) continue;
      moved = pipe->progress() || moved;
      all = all && pipe->finished();
    }
    if (all) return;
    if (moved) {
      backoff.reset();
    } else if (!backoff.pause()) {
      std::string why;
      for (const Pipe* pipe : pipes)
        if (!pipe->finished()) why += (why.empty() ? "" : "; ") + pipe->describe();
      throw sdk::TransportError(CCT_ERR_TIMEOUT,
                                "no progress for " + std::to_string(timeout_s) + " s: " + why);
    }
  }
}

}  // namespace cct::device
