#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "common/scratch.hpp"
#include "common/window_param.hpp"

namespace cct::plugins::alltoallv {

// Linear alltoallv with at most max_outstanding exchanges in flight: step
// k sends to rank + k and receives from rank - k, and step k waits for
// step k - max_outstanding to finish. Linear posts all n - 1 of both at
// once; with large or very unequal blocks these compete at every receiver
// for its link and memory bandwidth and for the transport's buffers, and
// the largest blocks keep the others waiting. The window keeps a few
// transfers per rank going, more than pairwise's one, without that
// flood; for small blocks the plain linear alltoallv wins.
class LinearThrottled {
 public:
  static constexpr sdk::Info info{
      .name = "linear_throttled",
      .doc = "linear alltoallv, at most max_outstanding exchanges at once",
      .collective = CCT_ALLTOALLV,
      .required_caps = CCT_CAP_P2P,
      .limits = CCT_LIMIT_IN_PLACE};
  static constexpr std::array<cct_param_desc, 1> params{{kWindowParam}};

  static void check(const sdk::Comm& comm, const cct_coll_args& a, std::span<const int64_t> params);
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  LinearThrottled(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  sdk::Comm comm_;
  std::size_t window_;
  std::vector<std::array<cct_request, 2>> slots_;  // a step's receive and send
  Scratch aside_;
};

}  // namespace cct::plugins::alltoallv
