#include "cct/device/pinned_pool.hpp"

#include <algorithm>

namespace cct::device {

PinnedPool::PinnedPool(Backend& backend, std::size_t block_bytes, std::size_t budget)
    : backend_(backend), block_bytes_(block_bytes), budget_(budget) {}

PinnedPool::~PinnedPool() {
  for (void* block : all_) backend_.free_pinned(block);
}

void* PinnedPool::try_take() {
  if (free_.empty()) {
    if (all_.size() == budget_) return nullptr;
    all_.push_back(backend_.alloc_pinned(block_bytes_));
    free_.push_back(all_.back());
  }
  void* block = free_.back();
  free_.pop_back();
  most_lent_ = std::max(most_lent_, ++lent_);
  return block;
}

void PinnedPool::give_back(void* block) {
  free_.push_back(block);
  --lent_;
}

}  // namespace cct::device
