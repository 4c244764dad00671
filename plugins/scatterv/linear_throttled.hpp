#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "common/window_param.hpp"

namespace cct::plugins::scatterv {

// Linear scatterv with at most max_outstanding sends in flight at the
// root: the next block goes out when the oldest one has left. With large
// blocks all posted at once the root's copies compete for its memory
// bandwidth and the transport's buffers; a window keeps a few going.
// Small blocks gain nothing from waiting: the plain linear scatterv wins.
class LinearThrottled {
 public:
  static constexpr sdk::Info info{.name = "linear_throttled",
                                  .doc = "linear scatterv, at most max_outstanding sends at once",
                                  .collective = CCT_SCATTERV,
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
  sdk::Comm comm_;
  std::size_t window_;
  std::vector<cct_request> sends_;
};

}  // namespace cct::plugins::scatterv
