#pragma once

#include <cstdint>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "common/scratch.hpp"

namespace cct::plugins::scan {

// Recursive doubling (Hillis and Steele): at step k each rank swaps its
// partial reduction with rank ^ 2^k (one way only where the lower rank's
// partial goes no further). What comes from a lower rank is the
// reduction of a run of ranks just below this rank's own partial, so it is
// combined on the left of it, and added to the result; after log2(n) steps
// rank r holds ranks 0..r (scan) or 0..r-1 (exscan). log2(n) steps of the
// whole vector: the choice for small vectors on many ranks.
template <cct_collective C>
class RecursiveDoubling {
 public:
  static constexpr sdk::Info info{.name = "recursive_doubling",
                                  .doc = "recursive doubling, log2(n) steps of the whole vector",
                                  .collective = C,
                                  .required_caps = CCT_CAP_P2P,
                                  .limits = CCT_LIMIT_IN_PLACE};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  RecursiveDoubling(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  sdk::Comm comm_;
  Scratch partial_, tmp_;
};

}  // namespace cct::plugins::scan
