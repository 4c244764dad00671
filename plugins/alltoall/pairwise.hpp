#pragma once

#include <cstdint>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "common/scratch.hpp"

namespace cct::plugins::alltoall {

// Pairwise-exchange alltoall: n - 1 steps; at step k each rank sends to
// rank + k and receives from rank - k (or, when n is a power of two,
// exchanges with rank ^ k, so both directions of a pair share the step).
// Each block travels once, directly, and only one exchange per rank is in
// flight, so no peer is flooded: the bandwidth choice for large blocks.
// Its n - 1 steps make Bruck (log2 n steps) better for small blocks.
class Pairwise {
 public:
  static constexpr sdk::Info info{.name = "pairwise",
                                  .doc = "n - 1 steps, one peer per step (XOR on powers of two)",
                                  .collective = CCT_ALLTOALL,
                                  .required_caps = CCT_CAP_P2P,
                                  .limits = CCT_LIMIT_IN_PLACE};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  Pairwise(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  sdk::Comm comm_;
  bool pow2_;
  Scratch scratch_;  // a copy of recvbuf for the in-place form
};

}  // namespace cct::plugins::alltoall
