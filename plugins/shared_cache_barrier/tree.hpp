// The tree of a hierarchical barrier, built from a communicator's topology
// levels (pure: no communicator, no shared memory, so tests build it from
// any partition).
//
// Stage s < levels groups the ranks still taking part by level s (L2, L3,
// NUMA, package..., innermost first); each group's leader (its lowest rank)
// goes on to stage s+1, the others are its children there and stop. A last,
// top stage gathers every remaining rank under the lowest, rank 0: the node
// level, which is never listed because it does not split the ranks. Leaders
// are taken among the ranks still taking part, so the tree is sound even
// where a level does not nest in the one below it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <vector>

namespace cct::plugins::shared_cache_barrier {

// One group of a stage: the leader and its children in increasing rank
// order. A child's slot in its leader's queue is its index in `children`.
struct Group {
  int leader = 0;
  std::vector<int> children;
};

// What one rank does in the barrier. It leads a group at every stage below
// `child_stage` (fan_in[s] children there, possibly none); at child_stage
// it is child `slot` of `parent`, unless it is the top (child_stage ==
// stages, parent -1), which leads at every stage.
struct Role {
  std::vector<int> fan_in;
  int child_stage = 0;
  int parent = -1;
  int slot = -1;
};

class BarrierTree {
 public:
  // group_of[l][r]: the group of rank r at level l, innermost level first,
  // `size` entries each.
  BarrierTree(int size, const std::vector<std::vector<int32_t>>& group_of) : size_(size) {
    if (size < 1) throw std::invalid_argument("a barrier tree needs at least one rank");
    std::vector<int> taking_part(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) taking_part[static_cast<std::size_t>(r)] = r;
    for (const auto& level : group_of) {
      if (level.size() != static_cast<std::size_t>(size))
        throw std::invalid_argument("a level must give a group for every rank");
      taking_part = add_stage(split(taking_part, level));
    }
    add_stage({taking_part});
  }

  int size() const { return size_; }
  // Levels used plus the top stage.
  int stages() const { return static_cast<int>(stages_.size()); }
  const std::vector<Group>& groups(int stage) const {
    return stages_.at(static_cast<std::size_t>(stage));
  }
  // The most children any group has: how many slots a queue needs.
  int max_fan_in() const {
    std::size_t most = 0;
    for (const auto& stage : stages_)
      for (const auto& group : stage) most = std::max(most, group.children.size());
    return static_cast<int>(most);
  }

  Role role(int rank) const {
    Role role;
    for (const auto& stage : stages_) {
      for (const auto& group : stage) {
        if (group.leader == rank) role.fan_in.push_back(static_cast<int>(group.children.size()));
        const auto child = std::find(group.children.begin(), group.children.end(), rank);
        if (child != group.children.end()) {
          role.parent = group.leader;
          role.slot = static_cast<int>(child - group.children.begin());
          role.child_stage = static_cast<int>(role.fan_in.size());
          return role;
        }
      }
    }
    role.child_stage = stages();
    return role;
  }

 private:
  // The ranks taking part, grouped by their group at one level; each list
  // sorted, so its first rank leads.
  static std::vector<std::vector<int>> split(const std::vector<int>& taking_part,
                                             const std::vector<int32_t>& level) {
    std::map<int32_t, std::vector<int>> by_group;
    for (int rank : taking_part) by_group[level[static_cast<std::size_t>(rank)]].push_back(rank);
    std::vector<std::vector<int>> members;
    for (auto& [group, ranks] : by_group) members.push_back(std::move(ranks));
    std::sort(members.begin(), members.end());
    return members;
  }

  // Records a stage and returns its leaders, who take part in the next.
  std::vector<int> add_stage(const std::vector<std::vector<int>>& members) {
    std::vector<Group> stage;
    std::vector<int> leaders;
    for (const auto& ranks : members) {
      stage.push_back(Group{ranks.front(), std::vector<int>(ranks.begin() + 1, ranks.end())});
      leaders.push_back(ranks.front());
    }
    stages_.push_back(std::move(stage));
    std::sort(leaders.begin(), leaders.end());
    return leaders;
  }

  int size_;
  std::vector<std::vector<Group>> stages_;
};

}  // namespace cct::plugins::shared_cache_barrier
