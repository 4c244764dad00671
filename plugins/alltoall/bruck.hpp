#pragma once

#include <cstdint>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "common/scratch.hpp"

namespace cct::plugins::alltoall {

// Bruck's alltoall: after a local rotation, step k = 1, 2, 4, .. sends to
// rank + k, packed into one message, every block whose index has bit k set;
// a final rotation puts the blocks in rank order. ceil(log2 n) messages per
// rank instead of n - 1, at the price of moving each block up to log2(n)
// times (about n/2 * log2(n) blocks per rank) and three local copies. It
// wins for small blocks, where the number of messages dominates; pairwise
// wins once bandwidth does.
class Bruck {
 public:
  static constexpr sdk::Info info{.name = "bruck",
                                  .doc = "ceil(log2 n) packed steps of doubling distance",
                                  .collective = CCT_ALLTOALL,
                                  .required_caps = CCT_CAP_P2P,
                                  .limits = CCT_LIMIT_IN_PLACE};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  Bruck(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  sdk::Comm comm_;
  Scratch scratch_;  // the rotated blocks, then two packing buffers
};

}  // namespace cct::plugins::alltoall
