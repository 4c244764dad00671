#pragma once

#include <cstdint>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "common/scratch.hpp"

namespace cct::plugins::alltoallv {

// Pairwise exchange: n - 1 steps, at step k sending to rank + k and
// receiving from rank - k (rank ^ k on a power of two, so that pairs
// swap). One message in each direction per step keeps every rank's link
// busy without flooding any receiver, whatever the counts; a step lasts as
// long as its largest block, so very unequal counts leave links idle.
class Pairwise {
 public:
  static constexpr sdk::Info info{.name = "pairwise",
                                  .doc = "n - 1 steps of one exchange each, any counts",
                                  .collective = CCT_ALLTOALLV,
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
  Scratch aside_;
};

}  // namespace cct::plugins::alltoallv
