// Two-level dual-queue barrier in shared memory: the baseline the
// multilevel barrier of the multicore collectives seed improves on
// (docs/design.md).
//
// Ranks are grouped by the innermost topology level (the ranks sharing an
// L2 or L3 cache, or a NUMA node: whatever comm.levels() lists first; one
// group on a flat machine). First each group's leader gathers its members,
// then rank 0 gathers the group leaders; releases go back the same way.
// Every group has two queues, each a cache-line-aligned array of one slot
// per child: the gather queue, where each child stamps its arrival, and the
// scatter queue, where the leader stamps each child's release. Keeping the
// two apart is the classic layout; its cost is that every child touches two
// lines per barrier (it writes one and waits on the other) and the queues
// take twice the space, which is what the one-queue multilevel barrier
// removes. Stamps are the barrier's number, increasing forever, so no slot
// is ever reset and a plan runs any number of barriers.
#pragma once

#include <span>

#include "cct/sdk/algorithm.hpp"
#include "shared_cache_barrier/shared_tree.hpp"

namespace cct::plugins::shared_cache_barrier {

class DualQueue {
 public:
  static constexpr cct::sdk::Info info{
      .name = "dual_queue",
      .doc = "two-level gather then scatter in shared memory, separate arrival and release queues",
      .collective = CCT_BARRIER,
      .required_caps = CCT_CAP_SHM,
  };

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  // Builds the two-level tree and allocates its queues (collective), once
  // per plan.
  DualQueue(const cct::sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  void wait_for_children(uint64_t episode) const;
  void arrive_and_wait_for_release(uint64_t episode) const;
  void release_children(uint64_t episode) const;

  SharedTree tree_;
  uint64_t episode_ = 0;  // barriers this rank has entered
};

}  // namespace cct::plugins::shared_cache_barrier
