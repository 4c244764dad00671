// HPL's long panel broadcast (blong; seed: HPL on heterogeneous systems,
// docs/design.md): the root spreads p pieces, one to each rank, and a roll around
// the ring completes every rank's copy. About 2n bytes per rank whatever p,
// so it is the broadcast for large buffers; its p - 1 roll steps make it a
// poor one for small ones. The seed's improvement, separate buffers for the
// spread's receive and the roll's send so that the two phases overlap, is
// in spread_roll.hpp. No segment parameter: the pieces are the pipeline's
// units.
#pragma once

#include <span>

#include "cct/sdk/algorithm.hpp"
#include "hpl_bcast/spread_roll.hpp"

namespace cct::plugins::hpl {

class HplBlong {
 public:
  static constexpr sdk::Info info{
      .name = "hpl_blong",
      .doc = "HPL long: spread of p pieces + roll, the two overlapped",
      .collective = CCT_BCAST,
      .required_caps = CCT_CAP_P2P,
  };

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  HplBlong(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  SpreadRoll spread_roll_;
};

}  // namespace cct::plugins::hpl
