#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "common/scratch.hpp"

namespace cct::plugins::alltoallv {

// Linear: every receive and every send posted at once, then one wait. The
// transport overlaps all of them, and a rank with nothing to say to a
// peer still posts its empty message (the counts are only known in pairs)
// but costs no step: the choice for small and very unequal blocks, where
// the pairwise steps would wait on the largest block each time.
class Linear {
 public:
  static constexpr sdk::Info info{.name = "linear",
                                  .doc = "every send and receive posted at once",
                                  .collective = CCT_ALLTOALLV,
                                  .required_caps = CCT_CAP_P2P,
                                  .limits = CCT_LIMIT_IN_PLACE};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  Linear(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  sdk::Comm comm_;
  std::vector<cct_request> requests_;
  Scratch aside_;
};

}  // namespace cct::plugins::alltoallv
