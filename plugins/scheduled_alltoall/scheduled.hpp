// Scheduled alltoall (seed: the multicore collectives paper, docs/design.md):
// pairwise exchanges on a one-factorisation (one_factor.hpp). In each round
// the ranks pair up, and the two ranks of a pair swap their blocks for each
// other in one sendrecv, so every step keeps both directions of each pair
// busy: n - 1 rounds for even n (XOR pairing on powers of two, the circle
// method otherwise) and n rounds with one rank idle per round for odd n.
//
// Why not plugins/alltoall/pairwise: off powers of two it sends to
// rank + k and receives from rank - k, two different peers. Each rank then
// takes part in two transfers per step, each at one end only, and a step
// ends when the slowest link of a cycle of n ranks is done; a rank that
// falls behind delays its successor's receive and, in the next step, its
// predecessor's send, so delays travel round the cycle. With a matching,
// a step is n/2 independent pair swaps: a pair finishes as soon as both
// its ranks are ready, no delay crosses to another pair within the round,
// and each exchange uses both directions of the one path between the two
// ranks at once.
//
// The matching also makes in-place cheap: round r touches only the block of
// the partner, so the block to send is staged in a one-block scratch
// instead of copying the whole receive buffer first.
#pragma once

#include <cstdint>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "common/scratch.hpp"

namespace cct::plugins::alltoall {

class Scheduled {
 public:
  static constexpr sdk::Info info{
      .name = "scheduled",
      .doc = "pair swaps on a one-factorisation (XOR on powers of two, circle method otherwise)",
      .collective = CCT_ALLTOALL,
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

}  // namespace cct::plugins::alltoall
