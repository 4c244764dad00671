// Scatter-allgather broadcast (van de Geijn).
//
// The root's buffer is cut into p pieces, scattered down a binomial tree
// (each rank gets its piece), then a ring allgather gives every rank every
// piece. Each rank sends and receives about 2n bytes in all, instead of the
// log2(p) * n of a binomial tree, at the price of log2(p) + p - 1 message
// latencies: the large-message broadcast for moderate rank counts, where
// bandwidth dominates. Any count works: piece sizes differ by at most one
// element, and when count < p the last pieces are empty and never sent.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "common/blocks.hpp"

namespace cct::plugins::bcast {

class ScatterAllgather {
 public:
  static constexpr cct::sdk::Info info{
      .name = "scatter_allgather",
      .doc = "binomial scatter of p pieces, then ring allgather (van de Geijn)",
      .collective = CCT_BCAST,
      .required_caps = CCT_CAP_P2P,
  };

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  ScatterAllgather(const cct::sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  // pieces splits the buffer in p blocks; piece i belongs to virtual rank i.
  void scatter(std::byte* buf, const Blocks& pieces, int vrank, const cct_coll_args& args);
  void allgather(std::byte* buf, const Blocks& pieces, int vrank, const cct_coll_args& args);

  cct::sdk::Comm comm_;
  std::vector<cct_request> requests_;  // the scatter's sends or a ring step's pair
};

}  // namespace cct::plugins::bcast
