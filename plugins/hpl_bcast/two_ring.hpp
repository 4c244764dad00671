// HPL's two-ring panel broadcast (2ring; seed: HPL on heterogeneous
// systems, docs/design.md).
//
// The non-root ranks are split into two halves, 1..h and h+1..p-1, each an
// increasing ring whose head the root feeds (segment_relay.hpp). Each ring
// is half as long, so the pipeline fills in half the hops and the last rank
// is reached about twice as soon, for the price of the root sending the
// buffer twice (its link carries 2n). Between 1ring (one long pipeline) and
// a tree.
#pragma once

#include <array>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "hpl_bcast/segment_relay.hpp"

namespace cct::plugins::hpl {

class Hpl2Ring {
 public:
  static constexpr sdk::Info info{
      .name = "hpl_2ring",
      .doc = "HPL two rings, one per half of the ranks",
      .collective = CCT_BCAST,
      .required_caps = CCT_CAP_P2P,
  };
  static constexpr std::array<cct_param_desc, 1> params{kSegmentParam};

  static void check(const sdk::Comm& comm, const cct_coll_args& args,
                    std::span<const int64_t> params);
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  Hpl2Ring(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  SegmentRelay relay_;
};

}  // namespace cct::plugins::hpl
