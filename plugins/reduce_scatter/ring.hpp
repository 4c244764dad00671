#pragma once

#include <cstdint>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "common/scratch.hpp"
#include "reduce_scatter/rank_blocks.hpp"

namespace cct::plugins::reduce_scatter {

// Ring reduce-scatter: n - 1 steps, each passing one partly reduced block
// to the right neighbour and reducing the one that came from the left into
// it, so that after the last step each rank holds its own block reduced
// over all. Every rank sends (n-1)/n of the vector over neighbour links
// only, the bandwidth lower bound, for any n; its n - 1 steps make it the
// large-vector choice. A block is reduced straight from the input and the
// received data, so nothing is copied first.
template <cct_collective C>
class Ring {
 public:
  static constexpr sdk::Info info{.name = "ring",
                                  .doc = "ring reduce-scatter, bandwidth-optimal, any n",
                                  .collective = C,
                                  .required_caps = CCT_CAP_P2P,
                                  .limits = CCT_LIMIT_IN_PLACE | CCT_LIMIT_COMMUTATIVE};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  Ring(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  int block(int shift) const;

  sdk::Comm comm_;
  int left_, right_;
  RankBlocks ranks_;
  Scratch acc_, tmp_;
};

}  // namespace cct::plugins::reduce_scatter
