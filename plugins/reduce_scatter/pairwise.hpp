#pragma once

#include <cstdint>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "common/scratch.hpp"
#include "reduce_scatter/rank_blocks.hpp"

namespace cct::plugins::reduce_scatter {

// Pairwise exchange: n - 1 steps; at step s each rank sends its input's
// block for rank + s straight to that rank and reduces the block that rank
// - s sent it into its result. Every rank sends (n-1)/n of the vector, the
// bandwidth lower bound, as the ring does, but each block goes to its
// owner in one hop and is never forwarded: what a step sends is the input
// itself, so no step waits for the reduction of the one before, and a slow
// rank holds up only the exchanges it is part of, not a chain around the
// ring. Unlike recursive halving it needs no extra full-vector step when n
// is not a power of two. The choice for large blocks where every pair of
// ranks is as close as any other; on a physical ring, where partners at
// distance s share links, the ring's neighbour-only traffic wins.
template <cct_collective C>
class Pairwise {
 public:
  static constexpr sdk::Info info{.name = "pairwise",
                                  .doc = "pairwise exchange, each block sent straight to its owner",
                                  .collective = C,
                                  .required_caps = CCT_CAP_P2P,
                                  .limits = CCT_LIMIT_IN_PLACE | CCT_LIMIT_COMMUTATIVE};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  Pairwise(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  sdk::Comm comm_;
  RankBlocks ranks_;
  Scratch acc_, tmp_;
};

}  // namespace cct::plugins::reduce_scatter
