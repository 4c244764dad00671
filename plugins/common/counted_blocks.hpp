// A vector split into contiguous blocks of given element counts, one after
// another: reduce_scatter's blocks (recvcounts), or reduce_scatter_block's
// equal ones. The same interface as Blocks, so that the algorithms written
// over Blocks take these too.
#pragma once

#include <cstddef>
#include <vector>

namespace cct::plugins {

class CountedBlocks {
 public:
  // Block b has counts[b] elements of `elem` bytes. Grows its storage only
  // when a call has more blocks than every call before it.
  void assign(const std::size_t* counts, int n, std::size_t elem) {
    offsets_.resize(static_cast<std::size_t>(n) + 1);
    offsets_[0] = 0;
    for (int b = 0; b < n; ++b) offsets_[b + 1] = offsets_[b] + counts[b] * elem;
    elem_ = elem;
  }

  std::size_t offset(int b) const { return offsets_[b]; }
  std::size_t bytes(int first, int k = 1) const { return offset(first + k) - offset(first); }
  std::size_t count(int first, int k = 1) const { return bytes(first, k) / elem_; }
  std::size_t total_bytes() const { return offsets_.back(); }

 private:
  std::vector<std::size_t> offsets_{0};
  std::size_t elem_ = 1;
};

}  // namespace cct::plugins
