#pragma once

#include <cstdint>
#include <span>

#include "cct/sdk/algorithm.hpp"

namespace cct::plugins::allgatherv {

// Ring allgatherv: n - 1 steps, each passing the block received in the
// step before to the right neighbour, straight between the ranks' receive
// buffers at each one's own displacements. Every rank receives exactly the
// others' blocks over neighbour links only, for any n and any counts; its
// n - 1 steps make it the large-message choice, and a step waits for the
// largest block in flight, so very unequal counts cost it most.
class Ring {
 public:
  static constexpr sdk::Info info{.name = "ring",
                                  .doc = "ring, blocks straight between receive buffers",
                                  .collective = CCT_ALLGATHERV,
                                  .required_caps = CCT_CAP_P2P,
                                  .limits = CCT_LIMIT_IN_PLACE};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  Ring(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  int block(int shift) const;

  sdk::Comm comm_;
  int left_, right_;
};

}  // namespace cct::plugins::allgatherv
