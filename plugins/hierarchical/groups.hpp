// Where the hierarchical algorithms split a communicator: the groups of
// ranks that share a cache (two_level) or a NUMA node (numa), and their
// leaders. Pure functions of the communicator's levels, with no transport
// and no state, so the tests check the split on synthetic topologies
// without launching ranks.
//
// The levels a communicator lists (cct_level) are the ones that split its
// ranks, innermost first; a level that equals the one below it is listed
// under the inner kind only. The functions below read them as:
//
//   split_at_level(level):  -1 (the default) = the innermost cache level
//                           (L2 or L3) listed, else the innermost level
//                           listed; 0..nlevels-1 = that entry of the levels;
//                           nlevels or more = one group of every rank (the
//                           node, which shares memory). With no levels at
//                           all every choice is one group: the ranks are
//                           then a single shared-memory group, the leader
//                           phase is empty and the algorithm is a plain
//                           shared-memory one.
//   numa_split:             the NUMA level when listed, else one group: the
//                           ranks share one NUMA node, or the levels cannot
//                           show their nodes (a NUMA split equal to a cache
//                           split is listed under the cache's kind; hwloc
//                           may attach one NUMA node to several packages).
//                           The algorithm stays correct either way.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cct/abi/algorithm.h"
#include "cct/sdk/cost.hpp"

namespace cct::plugins::hierarchical {

// A partition of the ranks 0..size-1 into groups numbered in order of their
// lowest rank, which is the group's leader (its home: the rank whose part
// of a shared region holds the group's shared buffer).
struct Groups {
  std::vector<int> group_of;              // per rank
  std::vector<std::vector<int>> members;  // per group, ascending ranks

  int count() const { return static_cast<int>(members.size()); }
  int leader(int group) const { return members[group].front(); }
  // The rank that leads `group` in a rooted call: the root leads its own
  // group (no hop from root to leader), the lowest rank leads the others.
  int call_leader(int group, int root) const {
    return group_of[root] == group ? root : leader(group);
  }
};

// Groups from a group number per rank (any numbering).
inline Groups groups_from(std::span<const int32_t> group_of) {
  Groups g;
  std::vector<int> renumbered(group_of.size(), -1);  // original number -> group
  for (std::size_t r = 0; r < group_of.size(); ++r) {
    const auto original = static_cast<std::size_t>(group_of[r]);
    if (original >= renumbered.size()) renumbered.resize(original + 1, -1);
    if (renumbered[original] < 0) {
      renumbered[original] = g.count();
      g.members.emplace_back();
    }
    g.group_of.push_back(renumbered[original]);
    g.members[renumbered[original]].push_back(static_cast<int>(r));
  }
  return g;
}

inline Groups one_group(int size) {
  return groups_from(std::vector<int32_t>(static_cast<std::size_t>(size), 0));
}

inline Groups groups_of_level(const cct_level& level, int size) {
  return groups_from(std::span<const int32_t>(level.group_of, static_cast<std::size_t>(size)));
}

inline bool is_cache(cct_level_kind kind) {
  return kind == CCT_LEVEL_L2 || kind == CCT_LEVEL_L3;
}

// The index in `levels` of the level the `level` parameter of the
// two_level algorithms splits at (see above), or levels.size() for one
// group. Throws std::out_of_range for a level below -1; check() refuses
// those first.
inline std::size_t split_index(std::span<const cct_level> levels, int64_t level) {
  if (level < -1) throw std::out_of_range("level " + std::to_string(level) + " < -1");
  if (level >= 0) return std::min(static_cast<std::size_t>(level), levels.size());
  for (std::size_t i = 0; i < levels.size(); ++i)
    if (is_cache(levels[i].kind)) return i;
  return 0;
}

// The groups of one level, or one group where the index is past the levels.
inline Groups groups_at(std::span<const cct_level> levels, int size, std::size_t index) {
  return index < levels.size() ? groups_of_level(levels[index], size) : one_group(size);
}

// The `level` parameter of the two_level algorithms (see above).
inline Groups split_at_level(std::span<const cct_level> levels, int size, int64_t level) {
  return groups_at(levels, size, split_index(levels, level));
}

// The index of the NUMA level in `levels`, or levels.size() for one group
// (see above).
inline std::size_t numa_index(std::span<const cct_level> levels) {
  for (std::size_t i = 0; i < levels.size(); ++i)
    if (levels[i].kind == CCT_LEVEL_NUMA) return i;
  return levels.size();
}

// The NUMA nodes of the ranks (see above).
inline Groups numa_split(std::span<const cct_level> levels, int size) {
  return groups_at(levels, size, numa_index(levels));
}

// Of the groups' members, those on the other side of the communicator's
// halves (ranks below size / 2 and the rest) from their group's leader:
// what a leader writes to its group through shared memory, or reads from
// it, crosses the halves once per such member (cct_cost.bisection_bytes).
// Only groups that hold ranks of both halves have any.
inline double members_across(const Groups& groups, int size) {
  const int half = size / 2;
  double across = 0;
  for (int r = 0; r < size; ++r)
    if ((r < half) != (groups.leader(groups.group_of[r]) < half)) ++across;
  return across;
}

// The leaders' sends that cross their halves when each sends to every
// other (in rank order, they stand for the communicator's halves): the
// crossings of n - 1 pairwise steps.
inline double all_pairs_crossings(int leaders) {
  double crossings = 0;
  for (int d = 1; d < leaders; ++d) crossings += cct::sdk::shift_crossing(leaders, d);
  return crossings;
}

// The levels of a communicator as a span.
inline std::span<const cct_level> levels_of(const cct_comm& comm) {
  return {comm.levels, static_cast<std::size_t>(comm.nlevels)};
}

}  // namespace cct::plugins::hierarchical
