// Broadcast by switch replication (the MPIRIO seed's broadcast).
//
// The root sends each packet once; every switch copies it to each of its
// ports on the route tree but the one it came in on, so the copies fan out
// in the fabric instead of being re-sent by DSPs. The seed's claim: with a
// switch serving 4 DSPs a packet reaches all N DSPs in about log4(N) steps
// of switch replication instead of a binomial tree's log2(N) rounds of
// DSP-to-DSP sends, and the root's link carries the message once, not
// log2(N) times. It needs the transport's mcast table and nothing else,
// so it is never offered on shared memory or MPI.
#pragma once

#include <span>

#include "cct/sdk/algorithm.hpp"

namespace cct::plugins::switch_assisted {

class SwitchBcast {
 public:
  static constexpr sdk::Info info{
      .name = "switch_bcast",
      .doc = "switches replicate the root's packets to every port of the route tree",
      .collective = CCT_BCAST,
      .required_caps = CCT_CAP_MCAST,
  };

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  SwitchBcast(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  sdk::Comm comm_;
};

}  // namespace cct::plugins::switch_assisted
