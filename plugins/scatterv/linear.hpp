#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"

namespace cct::plugins::scatterv {

// Linear scatterv: the root sends every rank its block straight from its
// displacement, all sends posted at once. Only the root knows the counts,
// so a tree would first have to tell each forwarding rank its subtree's
// sizes; one message per rank, no step between.
class Linear {
 public:
  static constexpr sdk::Info info{.name = "linear",
                                  .doc = "the root sends every rank its block at once",
                                  .collective = CCT_SCATTERV,
                                  .required_caps = CCT_CAP_P2P,
                                  .limits = CCT_LIMIT_IN_PLACE};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  Linear(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  sdk::Comm comm_;
  std::vector<cct_request> sends_;
};

}  // namespace cct::plugins::scatterv
