#pragma once

#include <cstdint>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "common/scratch.hpp"

namespace cct::plugins::allreduce {

// Recursive-doubling allreduce: at step d = 1, 2, .., p/2 each rank swaps its
// whole partial result with rank ^ d and reduces. log2(n) steps, the fewest
// of any allreduce, but each moves the whole vector (log2(n) * bytes per
// rank), so it is the latency choice for small vectors; ring and
// Rabenseifner move about 2 * bytes and win for large ones. Sizes that are
// not a power of two fold the extra ranks into a neighbour first and hand
// them the result at the end (two more steps).
class RecursiveDoubling {
 public:
  static constexpr sdk::Info info{
      .name = "recursive_doubling",
      .doc = "pairwise exchange of the whole vector at distances 1, 2, 4, ..",
      .collective = CCT_ALLREDUCE,
      .required_caps = CCT_CAP_P2P,
      .limits = CCT_LIMIT_IN_PLACE | CCT_LIMIT_COMMUTATIVE};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  RecursiveDoubling(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  sdk::Comm comm_;
  Scratch scratch_;
};

}  // namespace cct::plugins::allreduce
