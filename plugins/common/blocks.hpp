// A vector split into contiguous blocks, one per rank (or per participant), as
// evenly as possible. Shared by the algorithms that scatter a vector over ranks.
#pragma once

#include <algorithm>
#include <cstddef>

namespace cct::plugins {

// `count` elements of `elem` bytes in `n` blocks: block b has count / n elements,
// one more for the first count % n blocks (so some blocks are empty when
// count < n). Blocks lie in order, so blocks [first, first + k) form one range.
// Offsets and sizes are in bytes; count() is in elements.
class Blocks {
 public:
  Blocks(std::size_t count, int n, std::size_t elem)
      : base_(count / n), extra_(count % n), elem_(elem) {}

  std::size_t offset(int b) const {
    const auto i = static_cast<std::size_t>(b);
    return (i * base_ + std::min(i, extra_)) * elem_;
  }
  std::size_t bytes(int first, int k = 1) const { return offset(first + k) - offset(first); }
  std::size_t count(int first, int k = 1) const { return bytes(first, k) / elem_; }

 private:
  std::size_t base_;
  std::size_t extra_;
  std::size_t elem_;
};

}  // namespace cct::plugins
