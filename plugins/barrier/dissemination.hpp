// Dissemination barrier (Hensgen, Finkel and Manber).
//
// In round k every rank signals rank + 2^k and waits for rank - 2^k; after
// ceil(log2 size) rounds every rank has heard, directly or through others,
// from every rank. All ranks work in every round (no root, no idle half), any
// size works without special cases, and it has the fewest rounds a p2p
// barrier can have. With empty messages latency is all there is, so this is
// the default to beat on transports where one message costs the same
// whichever pair it joins.
#pragma once

#include <span>

#include "cct/sdk/algorithm.hpp"

namespace cct::plugins::barrier {

class Dissemination {
 public:
  static constexpr cct::sdk::Info info{
      .name = "dissemination",
      .doc = "ceil(log2 p) rounds, rank r signals r+2^k: no root, any size",
      .collective = CCT_BARRIER,
      .required_caps = CCT_CAP_P2P,
  };

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  Dissemination(const cct::sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  cct::sdk::Comm comm_;
  char token_ = 0;  // address of the empty messages
};

}  // namespace cct::plugins::barrier
