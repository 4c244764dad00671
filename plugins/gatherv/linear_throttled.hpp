#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "common/window_param.hpp"

namespace cct::plugins::gatherv {

// Linear gatherv with at most max_outstanding senders at a time: the root
// posts a receive at the block's displacement, then tells that rank to go
// with an empty message, and admits the next one when the oldest transfer
// is done. With unequal counts a few large blocks arriving at once
// oversubscribe the root's link and memory (incast); the window keeps the
// root busy without that, at one go-message latency per window, so for
// small blocks the plain linear gatherv wins.
class LinearThrottled {
 public:
  static constexpr sdk::Info info{.name = "linear_throttled",
                                  .doc = "linear gatherv, at most max_outstanding senders at once",
                                  .collective = CCT_GATHERV,
                                  .required_caps = CCT_CAP_P2P,
                                  .limits = CCT_LIMIT_IN_PLACE};
  static constexpr std::array<cct_param_desc, 1> params{{kWindowParam}};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  static void check(const sdk::Comm& comm, const cct_coll_args& a, std::span<const int64_t> params);
  LinearThrottled(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  void receive_all(const cct_coll_args& a);

  sdk::Comm comm_;
  std::size_t window_;
  std::vector<std::array<cct_request, 2>> slots_;  // a block's receive and its go message
  char token_ = 0;
};

}  // namespace cct::plugins::gatherv
