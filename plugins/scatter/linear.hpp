// Linear scatter.
//
// The root sends every rank its block straight from the send buffer, all
// p - 1 sends in flight at once. One step, each byte crosses once and
// nothing is copied on the way: the best choice for large blocks and small
// communicators. The root still issues p - 1 messages one after another, so
// for small blocks on many ranks the binomial tree's log2(p) steps win; when
// p - 1 concurrent transfers oversubscribe the root, linear_throttled bounds
// them.
#pragma once

#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"

namespace cct::plugins::scatter {

class Linear {
 public:
  static constexpr cct::sdk::Info info{
      .name = "linear",
      .doc = "the root sends every rank its block, all sends in flight at once",
      .collective = CCT_SCATTER,
      .required_caps = CCT_CAP_P2P,
      .limits = CCT_LIMIT_IN_PLACE,
  };

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  Linear(const cct::sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  void send_all(const cct_coll_args& args, std::size_t bytes);

  cct::sdk::Comm comm_;
  std::vector<cct_request> sends_;  // one per rank but the root
};

}  // namespace cct::plugins::scatter
