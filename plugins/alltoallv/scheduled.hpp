#pragma once

#include <cstdint>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "common/scratch.hpp"

namespace cct::plugins::alltoallv {

// Scheduled alltoallv: the scheduled alltoall's pair swaps
// (scheduled_alltoall/scheduled.hpp) with each pair's own counts. Each
// round the ranks pair up on a one-factorisation and the two ranks of a
// pair swap their blocks in one sendrecv, so a round is n/2 independent
// swaps: a pair that finishes early goes on, where the pairwise
// alltoallv's rank + k / rank - k cycle off powers of two passes a slow
// (large) block's delay round the whole ring. It wins over pairwise for
// unequal counts on ranks that are not a power of two; over linear where
// the blocks are large enough that all of them at once flood the
// receivers. In place only the block sent to the partner is staged, not
// the whole buffer: round r touches the partner's block alone.
class Scheduled {
 public:
  static constexpr sdk::Info info{
      .name = "scheduled",
      .doc = "pair swaps on a one-factorisation, each pair's own counts",
      .collective = CCT_ALLTOALLV,
      .required_caps = CCT_CAP_P2P,
      .limits = CCT_LIMIT_IN_PLACE};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  Scheduled(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  sdk::Comm comm_;
  Scratch staged_;  // in place: the block being sent, out of the way of the receive
};

}  // namespace cct::plugins::alltoallv
