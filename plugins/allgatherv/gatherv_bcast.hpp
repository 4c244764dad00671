#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "common/counted_blocks.hpp"
#include "common/scratch.hpp"

namespace cct::plugins::allgatherv {

// Gatherv then broadcast: rank 0 receives every block at once into a packed
// scratch, a binomial tree broadcasts the packed blocks, and each rank
// copies them out to its own displacements. Every message is a whole rank's
// block or the whole result, never a step's share of it, so its cost
// follows the total size rather than the largest block: when counts are
// very unequal (a few large blocks, many empty ones) it beats the ring,
// whose n - 1 steps each wait for the largest block in flight, and Bruck,
// whose steps forward the large blocks again and again. Rank 0's link
// carries every block in, so it loses where blocks are many and equal.
class GathervBcast {
 public:
  static constexpr sdk::Info info{.name = "gatherv_bcast",
                                  .doc = "linear gatherv to rank 0, binomial broadcast, copy out",
                                  .collective = CCT_ALLGATHERV,
                                  .required_caps = CCT_CAP_P2P,
                                  .limits = CCT_LIMIT_IN_PLACE};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  GathervBcast(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  void gather(const cct_coll_args& a, std::byte* packed);
  void bcast(std::byte* packed, uint32_t tag);
  void copy_out(const cct_coll_args& a, const std::byte* packed) const;

  sdk::Comm comm_;
  CountedBlocks blocks_;  // rank r's block in the packed scratch
  Scratch packed_;
  std::vector<cct_request> requests_;  // rank 0's receives, then a rank's sends to its children
};

}  // namespace cct::plugins::allgatherv
