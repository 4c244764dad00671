#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "common/scratch.hpp"

namespace cct::plugins::alltoall {

inline constexpr std::array<int64_t, 4> kThrottleRequests{2, 4, 8, 16};

// Linear alltoall with a bounded window: every rank posts its receive from
// rank - k and its send to rank + k for k = 1 .. n - 1, with at most
// max_requests of them in flight. Posting many at once overlaps the
// transfers and lets the transport use every path in parallel (the "many
// flows in flight" of PDBP), but all ranks firing at everyone at once
// congests the receivers' queues; the window is the knob between pairwise
// (one exchange at a time) and fully linear (everything at once). Which
// value wins depends on the transport's queue depth and the block size.
class LinearThrottled {
 public:
  static constexpr sdk::Info info{.name = "linear_throttled",
                                  .doc = "all peers in rank order, at most max_requests in flight",
                                  .collective = CCT_ALLTOALL,
                                  .required_caps = CCT_CAP_P2P,
                                  .limits = CCT_LIMIT_IN_PLACE};
  static constexpr std::array<cct_param_desc, 1> params{{
      {.name = "max_requests",
       .doc = "sends plus receives in flight at once (at least 2)",
       .type = CCT_PARAM_INT,
       .default_value = 8,
       .candidates = kThrottleRequests.data(),
       .ncandidates = kThrottleRequests.size()},
  }};

  static void check(const sdk::Comm& comm, const cct_coll_args& a, std::span<const int64_t> p);
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  LinearThrottled(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  cct_request& next_request();
  void wait_all_requests();

  sdk::Comm comm_;
  std::vector<cct_request> window_;  // a ring of max_requests requests
  std::size_t oldest_ = 0;
  std::size_t in_flight_ = 0;
  Scratch scratch_;  // a copy of recvbuf for the in-place form
};

}  // namespace cct::plugins::alltoall
