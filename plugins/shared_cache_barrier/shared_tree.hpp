// A barrier tree (tree.hpp) built from a communicator's levels, with the
// flag queues of its groups in one shared region.
//
// Each group's queues lie in its leader's part of the region (on the
// leader's NUMA node), one area per stage, so that a rank leading groups at
// several stages never shares a line between them. A queue holds one 64-bit
// slot per child, packed and starting on a cache line: the children of a
// group share a cache (that is what the level means), so their slots live
// in the cache they share, and the leader scans one line per 8 children.
#pragma once

#include <cstdint>

#include "cct/sdk/comm.hpp"
#include "cct/sdk/cost.hpp"
#include "shared_cache_barrier/tree.hpp"

namespace cct::plugins::shared_cache_barrier {

// The cost shape of one barrier on the tree of the innermost `levels`
// levels (all of them when 0 or more than comm has), SharedTree's tree.
cct_cost tree_barrier_cost(const cct::sdk::Comm& comm, int levels);

class SharedTree {
 public:
  // Collective. Uses the innermost `levels` of the communicator's levels
  // (all of them when 0 or more than it has) and gives each group `queues`
  // queues.
  SharedTree(const cct::sdk::Comm& comm, int levels, int queues);

  int rank() const { return rank_; }
  const Role& role() const { return role_; }
  // Slot `slot` of queue `queue` of the group that `leader` leads at `stage`.
  uint64_t* slot(int leader, int stage, int queue, int slot) const;
  // Blocks (yielding when ranks outnumber cores) until *flag >= value.
  void wait_until_at_least(const uint64_t* flag, uint64_t value) const;

 private:
  SharedTree(const cct::sdk::Comm& comm, const BarrierTree& tree, int queues);

  int rank_;
  Role role_;
  std::size_t queue_bytes_;
  std::size_t stage_bytes_;
  cct::sdk::SharedRegion region_;
};

}  // namespace cct::plugins::shared_cache_barrier
