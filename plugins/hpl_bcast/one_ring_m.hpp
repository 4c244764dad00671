// HPL's modified increasing-ring panel broadcast (1ringM; seed: HPL on
// heterogeneous systems, docs/design.md).
//
// The root sends to its next rank first, and that rank forwards nothing;
// the ring proper starts at the rank after it (0 -> 2 -> 3 -> .. -> p-1),
// the root feeding both, segment by segment (segment_relay.hpp). In HPL the
// next rank owns the next panel: it receives from the root directly, one
// hop, and spends no time forwarding, so it can start factorising the next
// panel earliest (look-ahead). The root sends the buffer twice; the ring
// is one rank shorter.
#pragma once

#include <array>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "hpl_bcast/segment_relay.hpp"

namespace cct::plugins::hpl {

class Hpl1RingM {
 public:
  static constexpr sdk::Info info{
      .name = "hpl_1ring_m",
      .doc = "HPL modified ring: next rank served alone, first",
      .collective = CCT_BCAST,
      .required_caps = CCT_CAP_P2P,
  };
  static constexpr std::array<cct_param_desc, 1> params{kSegmentParam};

  static void check(const sdk::Comm& comm, const cct_coll_args& args,
                    std::span<const int64_t> params);
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  Hpl1RingM(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  SegmentRelay relay_;
};

}  // namespace cct::plugins::hpl
