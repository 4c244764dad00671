#pragma once

#include <cstdint>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "common/blocks.hpp"
#include "common/scratch.hpp"

namespace cct::plugins::allreduce {

// Ring allreduce: a reduce-scatter around the ring (n - 1 steps, each rank
// reducing one block of bytes / n per step), then an allgather around it
// (n - 1 more steps). Every rank sends and receives 2 * (n - 1) / n * bytes,
// the bandwidth lower bound, using only neighbour links, for any n and any
// count (blocks may be empty when count < n). Its 2 * (n - 1) steps make it
// slow for small vectors; it is the large-vector choice, especially for
// sizes where Rabenseifner's folding costs extra full-vector steps.
class Ring {
 public:
  static constexpr sdk::Info info{.name = "ring",
                                  .doc = "ring reduce-scatter + ring allgather, bandwidth-optimal",
                                  .collective = CCT_ALLREDUCE,
                                  .required_caps = CCT_CAP_P2P,
                                  .limits = CCT_LIMIT_IN_PLACE | CCT_LIMIT_COMMUTATIVE};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  Ring(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  void reduce_scatter(const Blocks& blocks, std::byte* acc, std::byte* tmp, const cct_coll_args& a);
  void allgather(const Blocks& blocks, std::byte* acc, uint32_t tag);
  int block(int shift) const;

  sdk::Comm comm_;
  int left_, right_;
  Scratch scratch_;
};

}  // namespace cct::plugins::allreduce
