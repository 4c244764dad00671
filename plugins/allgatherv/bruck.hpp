#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "common/scratch.hpp"

namespace cct::plugins::allgatherv {

// Bruck's allgatherv: the blocks collect in a contiguous scratch in rotated
// order, this rank's own first; at step d = 1, 2, 4, .. each rank sends the
// first min(d, n - d) blocks it holds to rank - d and appends as many from
// rank + d. Rotation makes every step's blocks one contiguous run on both
// sides whatever the counts, so each step is a single message: ceil(log2 n)
// steps for any n, against the ring's n - 1, which makes it the choice for
// small blocks. The price is a copy of every block out of the scratch to its
// own displacement at the end, and steps that carry up to half the result.
class Bruck {
 public:
  static constexpr sdk::Info info{.name = "bruck",
                                  .doc = "ceil(log2 n) steps of doubling distance in a scratch",
                                  .collective = CCT_ALLGATHERV,
                                  .required_caps = CCT_CAP_P2P,
                                  .limits = CCT_LIMIT_IN_PLACE};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  Bruck(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  int rank_at(int i) const;
  void place(const cct_coll_args& a);

  sdk::Comm comm_;
  std::vector<std::size_t> offsets_;  // n + 1: where rotated block i starts in scratch
  Scratch scratch_;
};

}  // namespace cct::plugins::allgatherv
