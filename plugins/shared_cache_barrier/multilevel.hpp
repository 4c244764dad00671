// Multilevel shared-cache barrier with one queue for gather and scatter
// (the multicore collectives seed, docs/design.md).
//
// The tree follows the machine: ranks sharing an L2 or L3 cache form the
// groups of the first stage, their leaders meet per NUMA node, per package,
// and the top stage joins the remaining leaders under rank 0 (tree.hpp).
// Gather: each leader waits until all its children of a stage arrived, then
// arrives at its own parent; the top has seen every rank. Scatter: the top
// releases its children, and each leader released releases its own, stage
// by stage down. Traffic across a package or NUMA boundary is one arrival
// and one release per group instead of one per rank.
//
// Each group has ONE queue (shared_tree.hpp), a cache-line-aligned array
// with one slot per child, and both phases use it: the child writes its
// slot to say "arrived" and then waits on that same slot, which its leader
// overwrites with "released". The dual-queue barrier (dual_queue.hpp)
// keeps arrivals and releases in two queues, so every child touches two
// lines per barrier and its leader scans one and writes the other; here a
// child's arrival store leaves the line in its cache, the release
// invalidates it once, and the queues take half the space.
//
// The slots hold monotonically increasing stamps, 2e-1 for "arrived at
// barrier e" and 2e for "released from it": no slot is ever reset, so a
// plan runs any number of barriers, and a fast rank's next arrival can
// never be mistaken for a release of the previous barrier.
#pragma once

#include <array>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "shared_cache_barrier/shared_tree.hpp"

namespace cct::plugins::shared_cache_barrier {

class Multilevel {
 public:
  static constexpr cct::sdk::Info info{
      .name = "multilevel",
      .doc = "gather and scatter over the cache/NUMA/package levels, one shared queue per group",
      .collective = CCT_BARRIER,
      .required_caps = CCT_CAP_SHM,
  };
  static constexpr std::array<int64_t, 3> kLevelCandidates{0, 1, 2};
  static constexpr std::array<cct_param_desc, 1> params{{
      {.name = "levels",
       .doc = "topology levels the tree uses, innermost first (0 = all); the node joins the rest",
       .type = CCT_PARAM_INT,
       .default_value = 0,
       .candidates = kLevelCandidates.data(),
       .ncandidates = kLevelCandidates.size()},
  }};

  static void check(const cct::sdk::Comm& comm, const cct_coll_args& args,
                    std::span<const int64_t> params);
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  // Builds the tree and allocates its queues (collective), once per plan.
  Multilevel(const cct::sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  void wait_for_children(uint64_t arrived) const;
  void arrive_and_wait_for_release(uint64_t arrived, uint64_t released) const;
  void release_children(uint64_t released) const;

  SharedTree tree_;
  uint64_t episode_ = 0;  // barriers this rank has entered
};

}  // namespace cct::plugins::shared_cache_barrier
