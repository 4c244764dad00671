#pragma once

#include <cstdint>
#include <span>

#include "cct/sdk/algorithm.hpp"

namespace cct::plugins::allgather {

// Recursive-doubling allgather: at step d = 1, 2, .., n/2 each rank swaps
// everything it has gathered with rank ^ d. log2(n) steps, the fewest
// possible, with each block received once, so it beats the ring for small
// and medium blocks; but the partners grow distant, which costs on
// hierarchical networks for large blocks.
//
// Power-of-two sizes only (CCT_LIMIT_POW2_ONLY) rather than a fallback
// inside: the known ways to run it on other sizes add steps or send blocks
// twice, which makes it a different algorithm, and a hidden fallback would
// put ring or Bruck numbers in the profile under this name. The dispatcher
// picks ring or Bruck there instead.
class RecursiveDoubling {
 public:
  static constexpr sdk::Info info{
      .name = "recursive_doubling",
      .doc = "exchange of everything gathered at distances 1, 2, 4, .. (power-of-two sizes)",
      .collective = CCT_ALLGATHER,
      .required_caps = CCT_CAP_P2P,
      .limits = CCT_LIMIT_IN_PLACE | CCT_LIMIT_POW2_ONLY};

  static void check(const sdk::Comm& comm, const cct_coll_args& a, std::span<const int64_t> params);
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  RecursiveDoubling(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  sdk::Comm comm_;
};

}  // namespace cct::plugins::allgather
