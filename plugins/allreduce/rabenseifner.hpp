#pragma once

#include <cstdint>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "common/scratch.hpp"

namespace cct::plugins::allreduce {

// Rabenseifner's allreduce: a reduce-scatter by recursive halving, then an
// allgather by recursive doubling. Like the ring it moves about 2 * bytes
// per rank and spreads the reduction work, but in 2 * log2(p) steps instead
// of 2 * (n - 1), so it wins for medium and large vectors on many ranks.
// Sizes that are not a power of two fold the extra ranks into a neighbour
// first and hand them the result at the end: two full-vector steps that
// can make the ring the better choice there.
class Rabenseifner {
 public:
  static constexpr sdk::Info info{
      .name = "rabenseifner",
      .doc = "recursive-halving reduce-scatter + recursive-doubling allgather",
      .collective = CCT_ALLREDUCE,
      .required_caps = CCT_CAP_P2P,
      .limits = CCT_LIMIT_IN_PLACE | CCT_LIMIT_COMMUTATIVE};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  Rabenseifner(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  sdk::Comm comm_;
  Scratch scratch_;
};

}  // namespace cct::plugins::allreduce
