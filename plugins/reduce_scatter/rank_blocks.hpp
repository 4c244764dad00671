// The blocks of a reduce-scatter, one per rank in rank order: count
// elements each (reduce_scatter_block) or recvcounts[r] (reduce_scatter).
// Every algorithm here is written once over these and exported for both
// collectives.
#pragma once

#include <vector>

#include "cct/abi/algorithm.h"
#include "common/counted_blocks.hpp"

namespace cct::plugins::reduce_scatter {

class RankBlocks {
 public:
  // The call's blocks on `n` ranks (storage grows only when a call needs
  // more than every call before it).
  const CountedBlocks& of(const cct_coll_args& a, int n);

 private:
  std::vector<std::size_t> equal_;
  CountedBlocks blocks_;
};

}  // namespace cct::plugins::reduce_scatter
