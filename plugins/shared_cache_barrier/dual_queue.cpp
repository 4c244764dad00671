#include "shared_cache_barrier/dual_queue.hpp"

namespace cct::plugins::shared_cache_barrier {
namespace {

constexpr int kInnermostLevelOnly = 1;
constexpr int kQueues = 2;
constexpr int kGatherQueue = 0;
constexpr int kScatterQueue = 1;

}  // namespace

// The two-level tree, gathered up and released down (tree_barrier_cost):
// the second queue changes which lines a child touches, not the waits.
cct_cost DualQueue::cost(const cct::sdk::Comm& comm, const cct_coll_args&,
                         std::span<const int64_t>) {
  return tree_barrier_cost(comm, kInnermostLevelOnly);
}

DualQueue::DualQueue(const cct::sdk::Comm& comm, std::span<const int64_t>)
    : tree_(comm, kInnermostLevelOnly, kQueues) {}

void DualQueue::run(const cct_coll_args&) {
  ++episode_;
  wait_for_children(episode_);
  if (tree_.role().parent >= 0) arrive_and_wait_for_release(episode_);
  release_children(episode_);
}

void DualQueue::wait_for_children(uint64_t episode) const {
  const Role& role = tree_.role();
  for (int stage = 0; stage < role.child_stage; ++stage)
    for (int child = 0; child < role.fan_in[stage]; ++child)
      tree_.wait_until_at_least(tree_.slot(tree_.rank(), stage, kGatherQueue, child), episode);
}

void DualQueue::arrive_and_wait_for_release(uint64_t episode) const {
  const Role& role = tree_.role();
  cct::sdk::store_release(tree_.slot(role.parent, role.child_stage, kGatherQueue, role.slot),
                          episode);
  tree_.wait_until_at_least(tree_.slot(role.parent, role.child_stage, kScatterQueue, role.slot),
                            episode);
}

void DualQueue::release_children(uint64_t episode) const {
  const Role& role = tree_.role();
  for (int stage = role.child_stage - 1; stage >= 0; --stage)
    for (int child = 0; child < role.fan_in[stage]; ++child)
      cct::sdk::store_release(tree_.slot(tree_.rank(), stage, kScatterQueue, child), episode);
}

}  // namespace cct::plugins::shared_cache_barrier
