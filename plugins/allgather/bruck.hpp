#pragma once

#include <cstdint>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "common/scratch.hpp"

namespace cct::plugins::allgather {

// Bruck's allgather: at step d = 1, 2, 4, .. each rank sends the first
// min(d, n - d) blocks it holds to rank - d and appends as many from
// rank + d. ceil(log2 n) steps for any n, each block received once, at the
// price of one local rotation at the end (a copy of the whole result, done
// in place on rank 0). It is the small- and medium-message choice where n is
// not a power of two and recursive doubling does not apply.
class Bruck {
 public:
  static constexpr sdk::Info info{.name = "bruck",
                                  .doc = "ceil(log2 n) steps of doubling distance, any size",
                                  .collective = CCT_ALLGATHER,
                                  .required_caps = CCT_CAP_P2P,
                                  .limits = CCT_LIMIT_IN_PLACE};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  Bruck(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  sdk::Comm comm_;
  Scratch scratch_;
};

}  // namespace cct::plugins::allgather
