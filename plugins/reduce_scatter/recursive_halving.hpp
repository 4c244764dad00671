#pragma once

#include <cstdint>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "common/counted_blocks.hpp"
#include "common/fold.hpp"
#include "common/scratch.hpp"
#include "reduce_scatter/rank_blocks.hpp"

namespace cct::plugins::reduce_scatter {

// Recursive halving (as in Rabenseifner's reduce): log2(p) steps, each
// swapping half of the remaining window with the partner at distance p/2,
// p/4, ... and reducing the half kept, so each rank moves (p-1)/p of the
// vector in all, in few steps: the choice for small and medium vectors.
// On n ranks that are not a power of two, the first 2(n-p) fold in pairs
// first (one extra full-vector step) and the rank that sat out gets its
// block from its partner at the end. A participant's blocks are those of
// the ranks it stands for, so uneven counts cost nothing extra.
template <cct_collective C>
class RecursiveHalving {
 public:
  static constexpr sdk::Info info{.name = "recursive_halving",
                                  .doc = "recursive halving, pairs folded on non-powers of two",
                                  .collective = C,
                                  .required_caps = CCT_CAP_P2P,
                                  .limits = CCT_LIMIT_IN_PLACE | CCT_LIMIT_COMMUTATIVE};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  RecursiveHalving(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  const CountedBlocks& participant_blocks(const CountedBlocks& ranks, std::size_t elem);

  sdk::Comm comm_;
  Fold fold_;
  RankBlocks ranks_;
  std::vector<std::size_t> participant_counts_;
  CountedBlocks participants_;
  Scratch acc_, tmp_;
};

}  // namespace cct::plugins::reduce_scatter
