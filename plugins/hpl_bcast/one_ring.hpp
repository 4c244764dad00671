// HPL's increasing-ring panel broadcast (1ring; seed: HPL on heterogeneous
// systems, docs/design.md).
//
// The root sends to the next rank, which forwards to the next, and so on
// around the ring (virtual ranks 0 -> 1 -> .. -> p-1), pipelined in
// segments (segment_relay.hpp). Each rank sends the buffer at most once, so
// no link carries more than n bytes: with segments the whole ring is busy
// at once and the time approaches n / bandwidth plus p - 1 segment hops. In
// HPL's LU the next rank is the next panel's owner, and it gets the data
// first. Its p - 1 hops of latency lose to trees for small buffers.
#pragma once

#include <array>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "hpl_bcast/segment_relay.hpp"

namespace cct::plugins::hpl {

class Hpl1Ring {
 public:
  static constexpr sdk::Info info{
      .name = "hpl_1ring",
      .doc = "HPL increasing ring, pipelined in segments",
      .collective = CCT_BCAST,
      .required_caps = CCT_CAP_P2P,
  };
  static constexpr std::array<cct_param_desc, 1> params{kSegmentParam};

  static void check(const sdk::Comm& comm, const cct_coll_args& args,
                    std::span<const int64_t> params);
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  Hpl1Ring(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  SegmentRelay relay_;
};

}  // namespace cct::plugins::hpl
