// HPL's modified long panel broadcast (blongM; seed: HPL on heterogeneous
// systems, docs/design.md). The root first sends the whole buffer to its next
// rank, the next panel's owner in HPL, which then has nothing else to do
// and starts the next panel at once; the other ranks (the root and 2..p-1)
// run the overlapped spread + roll of blong among themselves
// (spread_roll.hpp), with one piece per participant.
#pragma once

#include <span>

#include "cct/sdk/algorithm.hpp"
#include "hpl_bcast/spread_roll.hpp"

namespace cct::plugins::hpl {

class HplBlongM {
 public:
  static constexpr sdk::Info info{
      .name = "hpl_blong_m",
      .doc = "HPL modified long: next rank gets it all first, then spread + roll",
      .collective = CCT_BCAST,
      .required_caps = CCT_CAP_P2P,
  };

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  HplBlongM(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  SpreadRoll spread_roll_;
};

}  // namespace cct::plugins::hpl
