#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "common/scratch.hpp"
#include "reduce_scatter/rank_blocks.hpp"

namespace cct::plugins::reduce_scatter {

// Reduce, then scatter: a binomial-tree reduce of the whole vector to rank
// 0 (ceil(log2 n) steps), then rank 0 sends every other rank its block, all
// n - 1 sends in flight at once (one more step). ceil(log2 n) + 1 steps is
// the fewest of any algorithm here on n that is not a power of two, and the
// partners of the tree never change with the vector: the choice for tiny
// vectors on many ranks, where a message costs its latency whatever its
// size. Every tree step moves the whole vector and rank 0 reduces log2(n)
// of them alone, so the time grows as log2(n) * bytes: the halving, ring
// and pairwise algorithms take over as soon as bandwidth counts.
template <cct_collective C>
class ReduceThenScatter {
 public:
  static constexpr sdk::Info info{.name = "reduce_then_scatter",
                                  .doc = "binomial reduce to rank 0, then a linear scatter",
                                  .collective = C,
                                  .required_caps = CCT_CAP_P2P,
                                  .limits = CCT_LIMIT_IN_PLACE | CCT_LIMIT_COMMUTATIVE};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  ReduceThenScatter(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  const std::byte* reduce(const cct_coll_args& a, std::size_t bytes);
  void scatter(const cct_coll_args& a, const CountedBlocks& blocks, const std::byte* sum);

  sdk::Comm comm_;
  RankBlocks ranks_;
  std::vector<cct_request> sends_;  // rank 0's, one per other rank
  Scratch scratch_;                 // a partial sum and a child's, grown to the largest call
};

}  // namespace cct::plugins::reduce_scatter
