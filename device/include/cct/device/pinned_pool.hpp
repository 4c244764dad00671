// Pinned host blocks shared by the pipes of one transport instance: PDBP's
// buffer pool between device and host (docs/algorithms.md).
//
// Each pipe owns one block, so that every message always moves; a pipe
// with more chunks ready than blocks borrows more from here, up to its
// `slots`, and gives them back as its chunks complete. So the memory goes
// to the messages that keep it busy (a long message alone gets several
// chunks in flight, many messages at once share a fixed budget), and the
// pinned memory of the instance is bounded by its pipes plus `budget`
// blocks, however many messages are in flight. Blocks are allocated on
// first need and kept (pinning memory is slow).
#pragma once

#include <cstddef>
#include <vector>

#include "cct/device/backend.hpp"

namespace cct::device {

class PinnedPool {
 public:
  PinnedPool(Backend& backend, std::size_t block_bytes, std::size_t budget);
  ~PinnedPool();
  PinnedPool(const PinnedPool&) = delete;
  PinnedPool& operator=(const PinnedPool&) = delete;

  // A free block, or null when all `budget` are lent. Throws Error where
  // allocating one fails.
  void* try_take();
  void give_back(void* block);

  std::size_t lent() const { return lent_; }
  // The most blocks lent at once over the pool's life.
  std::size_t most_lent() const { return most_lent_; }

 private:
  Backend& backend_;
  std::size_t block_bytes_;
  std::size_t budget_;
  std::vector<void*> all_, free_;
  std::size_t lent_ = 0, most_lent_ = 0;
};

}  // namespace cct::device
