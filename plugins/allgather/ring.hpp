#pragma once

#include <cstdint>
#include <span>

#include "cct/sdk/algorithm.hpp"

namespace cct::plugins::allgather {

// Ring allgather: n - 1 steps, each passing one block to the right
// neighbour. Every rank receives exactly the (n - 1) blocks it needs, once,
// over one link, and each step is a neighbour exchange that maps well onto
// any network; but the n - 1 steps make it the slowest choice for small
// blocks. It is the large-message baseline for any n.
class Ring {
 public:
  static constexpr sdk::Info info{.name = "ring",
                                  .doc = "n - 1 neighbour steps of one block each",
                                  .collective = CCT_ALLGATHER,
                                  .required_caps = CCT_CAP_P2P,
                                  .limits = CCT_LIMIT_IN_PLACE};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  Ring(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  sdk::Comm comm_;
};

}  // namespace cct::plugins::allgather
