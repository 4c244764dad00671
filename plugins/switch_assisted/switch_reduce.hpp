// Reduce by in-switch combining (the MPIRIO seed's reduction).
//
// Each switch combines, element by element, the vectors arriving from the
// ranks behind its ports and forwards one vector toward the root, so every
// link carries the vector once and the root combines at most one input per
// port instead of a tree's log2(N) full vectors. All four operators are
// commutative, so no limit is declared; but a switch combines its inputs
// in the order they arrive, which the fabric's timing decides: a
// floating-point sum may differ in its last bits from a sequential sum
// over ranks 0..N-1 (integers wrap and are exact in any order). It needs
// only the aggregate table. In place, the root's input is recvbuf itself.
#pragma once

#include <span>

#include "cct/sdk/algorithm.hpp"

namespace cct::plugins::switch_assisted {

class SwitchReduce {
 public:
  static constexpr sdk::Info info{
      .name = "switch_reduce",
      .doc = "switches combine the vectors of the ranks behind them on the way to the root",
      .collective = CCT_REDUCE,
      .required_caps = CCT_CAP_AGGREGATE,
      .limits = CCT_LIMIT_IN_PLACE,
  };

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  SwitchReduce(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  sdk::Comm comm_;
};

}  // namespace cct::plugins::switch_assisted
