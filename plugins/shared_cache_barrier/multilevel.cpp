#include "shared_cache_barrier/multilevel.hpp"

namespace cct::plugins::shared_cache_barrier {
namespace {

constexpr int kQueue = 0;  // the one queue of a group

int levels_of(std::span<const int64_t> params) {
  if (params[0] < 0) throw cct::sdk::Unsupported("levels must be 0 (all) or more");
  return static_cast<int>(params[0]);
}

}  // namespace

// The tree of the levels used, gathered up and released down
// (tree_barrier_cost).
cct_cost Multilevel::cost(const cct::sdk::Comm& comm, const cct_coll_args&,
                          std::span<const int64_t> params) {
  return tree_barrier_cost(comm, levels_of(params));
}

void Multilevel::check(const cct::sdk::Comm&, const cct_coll_args&,
                       std::span<const int64_t> params) {
  levels_of(params);
}

Multilevel::Multilevel(const cct::sdk::Comm& comm, std::span<const int64_t> params)
    : tree_(comm, levels_of(params), 1) {}

void Multilevel::run(const cct_coll_args&) {
  ++episode_;
  const uint64_t arrived = 2 * episode_ - 1;
  const uint64_t released = 2 * episode_;
  wait_for_children(arrived);
  if (tree_.role().parent >= 0) arrive_and_wait_for_release(arrived, released);
  release_children(released);
}

// Gather up to this rank: the groups it leads, innermost stage first.
void Multilevel::wait_for_children(uint64_t arrived) const {
  const Role& role = tree_.role();
  for (int stage = 0; stage < role.child_stage; ++stage)
    for (int child = 0; child < role.fan_in[stage]; ++child)
      tree_.wait_until_at_least(tree_.slot(tree_.rank(), stage, kQueue, child), arrived);
}

// The turn of the one queue: arrive in this rank's slot, and wait on the
// same slot until the parent overwrites it with the release.
void Multilevel::arrive_and_wait_for_release(uint64_t arrived, uint64_t released) const {
  const Role& role = tree_.role();
  uint64_t* mine = tree_.slot(role.parent, role.child_stage, kQueue, role.slot);
  cct::sdk::store_release(mine, arrived);
  tree_.wait_until_at_least(mine, released);
}

// Scatter: outermost stage first, so that the leaders below start
// releasing their own groups as early as possible.
void Multilevel::release_children(uint64_t released) const {
  const Role& role = tree_.role();
  for (int stage = role.child_stage - 1; stage >= 0; --stage)
    for (int child = 0; child < role.fan_in[stage]; ++child)
      cct::sdk::store_release(tree_.slot(tree_.rank(), stage, kQueue, child), released);
}

}  // namespace cct::plugins::shared_cache_barrier
