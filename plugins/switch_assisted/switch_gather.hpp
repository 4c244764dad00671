// Gather by in-switch aggregation (the MPIRIO seed's gather).
//
// Each switch waits for the packets of the ranks behind its ports, packs
// their payloads into as few packets as fit and forwards them toward the
// root. The seed's claim: a software tree gather of one packet per rank
// injects about N x log4(N) packets into a fabric of 4-DSP switches (each
// block is re-sent at every level), while the switch packs its 4 inputs
// into one output, so the fabric carries about (N - 1) x 4/3 packets (N - 1
// from the DSPs, then a quarter as many again per level, summing to 1/3).
// It needs only the aggregate table. The root's in-place form passes its
// own block (already in recvbuf) as the send buffer: the ABI of
// cct_aggregate_ops.gather has no in-place marker, and a transport that
// copies the root's send block to its place copies it onto itself.
#pragma once

#include <span>

#include "cct/sdk/algorithm.hpp"

namespace cct::plugins::switch_assisted {

class SwitchGather {
 public:
  static constexpr sdk::Info info{
      .name = "switch_gather",
      .doc = "switches pack the blocks of the ranks behind them on the way to the root",
      .collective = CCT_GATHER,
      .required_caps = CCT_CAP_AGGREGATE,
      .limits = CCT_LIMIT_IN_PLACE,
  };

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  SwitchGather(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  sdk::Comm comm_;
};

}  // namespace cct::plugins::switch_assisted
