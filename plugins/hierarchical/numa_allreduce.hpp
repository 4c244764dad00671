// NUMA-aware allreduce (the multicore collectives seed and ParM's buffer
// placement, docs/design.md: NUMA-aware allreduce).
//
// The ranks split into their NUMA nodes (groups.hpp: numa_split), each led
// by its lowest rank. Per chunk of the vector:
//   1. reduce: every member puts its chunk into a shared channel in its own
//      part; the leader reduces them, in rank order, into the slot of the
//      channel in its own part. The shm transport binds each rank's part to
//      that rank's NUMA node, so the partial result is built in memory on
//      the node, and no member's data crosses to another node to be reduced.
//   2. across: the leaders exchange their nodes' partials over p2p and each
//      combines them in node order, so every leader computes the very same
//      bits (floating point included);
//   3. release: the leader puts the result into its slot and the members
//      of its node copy it out.
// Only one vector per NUMA node crosses the inter-node links, where a flat
// allreduce sends p. The chunks pipeline the steps: a member hands in chunk
// c + 1 while it waits for the result of chunk c. With a single NUMA node
// (or levels that do not show one) it is a shared-memory reduce to one
// leader and a release: a plain shared-memory allreduce on the node.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "hierarchical/groups.hpp"
#include "hierarchical/params.hpp"

namespace cct::plugins::hierarchical {

class NumaAllreduce {
 public:
  static constexpr cct::sdk::Info info{
      .name = "numa",
      .doc = "reduce per NUMA node into node-local shared memory, leaders exchange, node copies",
      .collective = CCT_ALLREDUCE,
      .required_caps = CCT_CAP_P2P | CCT_CAP_SHM,
      .limits = CCT_LIMIT_IN_PLACE,
  };
  static constexpr std::array<cct_param_desc, 1> params{{kChunkParam}};

  static void check(const cct::sdk::Comm& comm, const cct_coll_args& args,
                    std::span<const int64_t> params);
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  NumaAllreduce(const cct::sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  void hand_in_and_collect(const cct_coll_args& args, std::size_t bytes, uint64_t first);
  void lead(const cct_coll_args& args, std::size_t bytes, uint64_t first);
  void reduce_chunk(const cct_coll_args& args, std::byte* slot, std::size_t length, uint64_t n);
  void combine_nodes(const cct_coll_args& args, std::byte* slot, std::byte* result,
                     std::size_t length);

  cct::sdk::Comm comm_;
  Groups groups_;
  int group_;
  std::size_t chunk_;
  cct::sdk::SharedRegion region_;
  uint64_t chunks_ = 0;                // chunks through every channel so far
  std::vector<std::byte> partials_;    // a leader's chunk of every other node's partial
  std::vector<cct_request> requests_;  // a leader's exchange of one chunk
};

}  // namespace cct::plugins::hierarchical
