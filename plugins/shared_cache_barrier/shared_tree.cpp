#include "shared_cache_barrier/shared_tree.hpp"

#include <algorithm>
#include <vector>

namespace cct::plugins::shared_cache_barrier {
namespace {

constexpr std::size_t kCacheLine = 64;

BarrierTree tree_of(const cct::sdk::Comm& comm, int levels) {
  const int used = levels > 0 ? std::min(levels, comm.levels()) : comm.levels();
  std::vector<std::vector<int32_t>> group_of(static_cast<std::size_t>(used));
  for (int l = 0; l < used; ++l)
    for (int r = 0; r < comm.size(); ++r)
      group_of[static_cast<std::size_t>(l)].push_back(comm.level(l).group_of(r));
  return BarrierTree(comm.size(), group_of);
}

// Room for `slots` 64-bit slots, in whole cache lines (at least one).
std::size_t queue_bytes_for(int slots) {
  const std::size_t bytes = static_cast<std::size_t>(std::max(slots, 1)) * sizeof(uint64_t);
  return (bytes + kCacheLine - 1) / kCacheLine * kCacheLine;
}

}  // namespace

// Every child of a group stamps its arrival at once and its leader waits
// for them, then the leader releases them at once: at each stage with any
// child, one wait up and one down, at the span of the stage's groups (the
// top stage joins leaders of anywhere).
cct_cost tree_barrier_cost(const cct::sdk::Comm& comm, int levels) {
  const BarrierTree tree = tree_of(comm, levels);
  cct::sdk::CostShape cost;
  for (int stage = 0; stage < tree.stages(); ++stage) {
    const std::vector<Group>& groups = tree.groups(stage);
    if (std::all_of(groups.begin(), groups.end(),
                    [](const Group& g) { return g.children.empty(); }))
      continue;
    cost.send(stage + 1 < tree.stages() ? stage : comm.levels(), 2, 0);
  }
  return cost;
}

SharedTree::SharedTree(const cct::sdk::Comm& comm, int levels, int queues)
    : SharedTree(comm, tree_of(comm, levels), queues) {}

SharedTree::SharedTree(const cct::sdk::Comm& comm, const BarrierTree& tree, int queues)
    : rank_(comm.rank()),
      role_(tree.role(comm.rank())),
      queue_bytes_(queue_bytes_for(tree.max_fan_in())),
      stage_bytes_(queue_bytes_ * static_cast<std::size_t>(queues)),
      region_(comm, stage_bytes_ * static_cast<std::size_t>(tree.stages())) {}

uint64_t* SharedTree::slot(int leader, int stage, int queue, int slot) const {
  char* area =
      static_cast<char*>(region_.peer(leader)) + static_cast<std::size_t>(stage) * stage_bytes_;
  return reinterpret_cast<uint64_t*>(area + static_cast<std::size_t>(queue) * queue_bytes_) + slot;
}

void SharedTree::wait_until_at_least(const uint64_t* flag, uint64_t value) const {
  region_.wait(flag, value, CCT_WAIT_GE);
}

}  // namespace cct::plugins::shared_cache_barrier
