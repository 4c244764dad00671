// The binomial gatherv and scatterv (rooted.hpp's tree on virtual ranks)
// with per-rank counts: one rank's subtree's counts in virtual rank order
// from that rank on, and where each block lies when the subtree's blocks
// are packed one after another, the message a tree edge carries. Only the
// root knows every count; the other ranks learn their subtree's over the
// tree, from the counts a message of counts() carries.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "common/counted_blocks.hpp"
#include "common/rooted.hpp"

namespace cct::plugins {

class SubtreeCounts {
 public:
  explicit SubtreeCounts(int size) : counts_(static_cast<std::size_t>(size)) {}

  // The root's view: every rank's count from the root's array, at its
  // virtual rank. The root's own block never travels: it counts 0.
  void of_tree(const std::size_t* counts, int root, int size, std::size_t elem) {
    counts_[0] = 0;
    for (int v = 1; v < size; ++v) counts_[v] = counts[to_real(v, root, size)];
    lay_out(size, elem);
  }
  // The counts of blocks first.. of the subtree, to send or receive.
  std::size_t* counts(int first = 0) { return counts_.data() + first; }
  static std::size_t counts_bytes(int blocks) { return blocks * sizeof(std::size_t); }
  // The packing of the subtree's first `blocks` blocks, once counts() holds them.
  void lay_out(int blocks, std::size_t elem) { packed_.assign(counts_.data(), blocks, elem); }
  const CountedBlocks& packed() const { return packed_; }

 private:
  std::vector<std::size_t> counts_;
  CountedBlocks packed_;
};

// The size of the subtree of virtual rank child: its binomial span, cut at
// the communicator's end.
inline int subtree_blocks(int child, int size) {
  return std::min(binomial_span(child, size), size - child);
}

}  // namespace cct::plugins
