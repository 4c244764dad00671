#include "reduce_scatter/rank_blocks.hpp"

#include "common/args.hpp"

namespace cct::plugins::reduce_scatter {

const CountedBlocks& RankBlocks::of(const cct_coll_args& a, int n) {
  const std::size_t* counts = a.recvcounts;
  if (a.collective == CCT_REDUCE_SCATTER_BLOCK) {
    equal_.assign(static_cast<std::size_t>(n), a.count);
    counts = equal_.data();
  }
  blocks_.assign(counts, n, elem_size(a));
  return blocks_;
}

}  // namespace cct::plugins::reduce_scatter
