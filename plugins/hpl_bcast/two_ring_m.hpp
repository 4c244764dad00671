// HPL's modified two-ring panel broadcast (2ringM; seed: HPL on
// heterogeneous systems, docs/design.md).
//
// As 2ring, with the modification of 1ringM: the root's next rank (the next
// panel owner) is served first and alone, and the remaining ranks 2..p-1
// form two rings over their two halves, both fed by the root
// (segment_relay.hpp). Shortest route to the next panel owner and half-length
// rings for the rest; the root's link carries 3n.
#pragma once

#include <array>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "hpl_bcast/segment_relay.hpp"

namespace cct::plugins::hpl {

class Hpl2RingM {
 public:
  static constexpr sdk::Info info{
      .name = "hpl_2ring_m",
      .doc = "HPL modified two rings: next rank first, then two rings",
      .collective = CCT_BCAST,
      .required_caps = CCT_CAP_P2P,
  };
  static constexpr std::array<cct_param_desc, 1> params{kSegmentParam};

  static void check(const sdk::Comm& comm, const cct_coll_args& args,
                    std::span<const int64_t> params);
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  Hpl2RingM(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  SegmentRelay relay_;
};

}  // namespace cct::plugins::hpl
