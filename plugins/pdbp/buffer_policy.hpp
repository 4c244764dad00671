// PDBP's buffer policy: per-peer send rows whose slots are blocks of one
// fixed pool, grown by utilisation and sized by each peer's receive/send
// ratio (the PDBP seed in docs/design.md).
//
// A rank's sending memory is one pool of fixed-size blocks. Each peer has a
// row of the send matrix: the blocks holding data written for that peer and
// not yet drained by it. A row may hold at most `capacity` blocks; it starts
// at the initial slot count, and whenever taking a block brings its
// utilisation (blocks held / capacity) to the threshold or past it, the row
// grows. Fixed rows would either waste memory on peers that drain quickly or
// throttle the ones that need more flows in flight; growing on demand gives
// blocks to the rows that keep theirs busy.
//
// The growth amount follows the peer's receive/send ratio: bytes received
// from the peer over bytes sent to it so far. A peer that has sent us more
// than we sent it (ratio > 1) is ahead, and our row to it is what holds the
// exchange back: it grows by up to twice its capacity. A peer that lags
// (ratio < 1) is slow to drain, and blocks given to its row would sit idle:
// it grows by that fraction of its capacity, at least one slot.
//
// Rows only set quotas; the blocks themselves come from the shared pool, so
// the quotas of all rows may add up to more than the pool holds. When the
// pool is exhausted an acquire waits, bounded by the caller's patience,
// until another thread returns blocks; it never fails the collective.
//
// The receive matrix is the peers' send rows seen from the reader: a
// receiver drains a writer's slots straight into its receive buffer, so its
// receive rows need no blocks of their own (they would cost a third copy),
// only the per-peer tally of bytes received that sets the ratio above.
//
// Thread-safe: the pool threads of one rank share one policy.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <vector>

namespace cct::plugins::pdbp {

struct PolicyShape {
  int peers = 0;              // rows of the send matrix
  int initial_slots = 1;      // capacity of every row when a call starts
  int threshold_percent = 0;  // utilisation (1..100) at which a row grows
  int blocks = 0;             // blocks in the pool
};

class BufferPolicy {
 public:
  // How long an acquire may wait for the pool; kForever waits until a
  // block is returned.
  using Patience = std::chrono::microseconds;
  static constexpr Patience kForever = Patience::max();

  explicit BufferPolicy(const PolicyShape& shape);

  // Puts every row back to its initial capacity and clears the tallies: a
  // new call starts. Every block must have been released.
  void start_call();

  // A block of the pool for a slot of `peer`'s row, or nothing when the row
  // is at its capacity (the peer must drain it first) or when the pool
  // stayed exhausted for `patience`.
  std::optional<uint32_t> acquire(int peer, Patience patience);
  // Returns a block that `peer`'s row held to the pool.
  void release(int peer, uint32_t block);

  void record_sent(int peer, std::size_t bytes);
  void record_received(int peer, std::size_t bytes);

  int capacity(int peer) const;
  int held(int peer) const;
  int free_blocks() const;

  // By how many slots a row of `capacity` grows for a peer with this
  // receive/send tally (ratio 1 while nothing was sent).
  static int growth(int capacity, std::size_t received, std::size_t sent);

  // A row that is ahead of its peer grows at most by this many times its size.
  static constexpr std::size_t kMaxRatio = 2;

 private:
  struct Row {
    int capacity = 0;
    int held = 0;
    std::size_t sent = 0;
    std::size_t received = 0;
  };

  bool busy(const Row& row) const;

  PolicyShape shape_;
  mutable std::mutex mutex_;
  std::condition_variable returned_;  // signalled when blocks go back to the pool
  std::vector<Row> rows_;
  std::vector<uint32_t> free_;  // the pool: indices of free blocks
};

inline BufferPolicy::BufferPolicy(const PolicyShape& shape)
    : shape_(shape), rows_(static_cast<std::size_t>(shape.peers)) {
  if (shape.peers < 0 || shape.initial_slots < 1 || shape.blocks < 1 ||
      shape.threshold_percent < 1 || shape.threshold_percent > 100)
    throw std::invalid_argument("pdbp: invalid buffer policy shape");
  free_.reserve(static_cast<std::size_t>(shape.blocks));
  // Lowest index on top: the first blocks taken are the first in memory.
  for (int b = shape.blocks - 1; b >= 0; --b) free_.push_back(static_cast<uint32_t>(b));
  start_call();
}

inline void BufferPolicy::start_call() {
  std::lock_guard lock(mutex_);
  if (free_.size() != static_cast<std::size_t>(shape_.blocks))
    throw std::logic_error("pdbp: a call started with blocks still held");
  for (Row& row : rows_) row = Row{.capacity = std::min(shape_.initial_slots, shape_.blocks)};
}

inline int BufferPolicy::growth(int capacity, std::size_t received, std::size_t sent) {
  if (sent == 0) return capacity;
  const std::size_t scaled =
      static_cast<std::size_t>(capacity) * std::min(received, kMaxRatio * sent) / sent;
  return std::max(1, static_cast<int>(scaled));
}

inline bool BufferPolicy::busy(const Row& row) const {
  return row.held * 100 >= shape_.threshold_percent * row.capacity;
}

inline std::optional<uint32_t> BufferPolicy::acquire(int peer, Patience patience) {
  std::unique_lock lock(mutex_);
  Row& row = rows_.at(static_cast<std::size_t>(peer));
  if (row.held >= row.capacity) return std::nullopt;
  auto available = [&] { return !free_.empty(); };
  if (patience == kForever)
    returned_.wait(lock, available);
  else if (!returned_.wait_for(lock, patience, available))
    return std::nullopt;
  const uint32_t block = free_.back();
  free_.pop_back();
  ++row.held;
  if (busy(row))
    row.capacity =
        std::min(shape_.blocks, row.capacity + growth(row.capacity, row.received, row.sent));
  return block;
}

inline void BufferPolicy::release(int peer, uint32_t block) {
  {
    std::lock_guard lock(mutex_);
    --rows_.at(static_cast<std::size_t>(peer)).held;
    free_.push_back(block);
  }
  returned_.notify_all();
}

inline void BufferPolicy::record_sent(int peer, std::size_t bytes) {
  std::lock_guard lock(mutex_);
  rows_.at(static_cast<std::size_t>(peer)).sent += bytes;
}

inline void BufferPolicy::record_received(int peer, std::size_t bytes) {
  std::lock_guard lock(mutex_);
  rows_.at(static_cast<std::size_t>(peer)).received += bytes;
}

inline int BufferPolicy::capacity(int peer) const {
  std::lock_guard lock(mutex_);
  return rows_.at(static_cast<std::size_t>(peer)).capacity;
}

inline int BufferPolicy::held(int peer) const {
  std::lock_guard lock(mutex_);
  return rows_.at(static_cast<std::size_t>(peer)).held;
}

inline int BufferPolicy::free_blocks() const {
  std::lock_guard lock(mutex_);
  return static_cast<int>(free_.size());
}

}  // namespace cct::plugins::pdbp
