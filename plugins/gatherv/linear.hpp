#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"

namespace cct::plugins::gatherv {

// Linear gatherv: every rank sends its block straight to the root, which
// has posted all its receives at once, each at its displacement. Only the
// root knows the counts, so no rank could forward another's block without
// first learning its size: one message per rank, no step between, which
// on one node (the root's receives land in parallel) is also the fastest.
class Linear {
 public:
  static constexpr sdk::Info info{.name = "linear",
                                  .doc = "every rank sends its block to the root at once",
                                  .collective = CCT_GATHERV,
                                  .required_caps = CCT_CAP_P2P,
                                  .limits = CCT_LIMIT_IN_PLACE};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  Linear(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  sdk::Comm comm_;
  std::vector<cct_request> receives_;
};

}  // namespace cct::plugins::gatherv
