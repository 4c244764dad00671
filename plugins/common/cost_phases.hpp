// The cost shape (cct/sdk/cost.hpp) of an algorithm that runs other
// algorithm classes on parts of its communicator (cct/sdk/subcomm.hpp):
// each phase's cost is that class's own, asked of a shape-only
// communicator of the part, with its spans moved onto the parent's.
#pragma once

#include <algorithm>
#include <array>
#include <memory>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "cct/sdk/cost.hpp"
#include "cct/sdk/subcomm.hpp"

namespace cct::plugins {

// The cost of algorithm class A with its default parameters.
template <class A>
cct_cost default_cost(const sdk::Comm& comm, const cct_coll_args& args) {
  std::vector<int64_t> defaults;
  for (const cct_param_desc& p : sdk::detail::params_of<A>()) defaults.push_back(p.default_value);
  return A::cost(comm, args, defaults);
}

// `cost` with the messages of its span s moved to span to[s], and its
// bisection bytes `crossing` times (a phase run by that many parts whose
// traffic crosses the parent's halves; 1 for one that does, 0 for none).
inline cct_cost moved_spans(const cct_cost& cost, const std::array<int, CCT_COST_SPANS>& to,
                            double crossing = 1) {
  sdk::CostShape moved;
  for (int s = 0; s < CCT_COST_SPANS; ++s)
    moved.send(to[s], cost.spans[s].messages, cost.spans[s].bytes);
  return moved.reduce(cost.reduced_bytes)
      .copy(cost.copied_bytes)
      .cross(crossing * cost.bisection_bytes);
}

// The largest group of level `level` of `parent` (its phase is the longest)
// as GroupComm builds it, shape only, and the parent span of each of its
// spans: span s < its levels is that of its level s (the parent level of
// that kind), its outermost one the first parent level that holds the
// whole group. Its phase's bisection bytes count once per group of the
// level that holds ranks of both halves of the parent (only those carry
// the phase across them); a group on one side contributes none.
class GroupShape {
 public:
  GroupShape(const sdk::Comm& parent, int level) : straddling_(straddling_groups(parent, level)) {
    cct_comm at = *parent.raw();
    at.rank = largest_group_member(parent, level);
    group_ = std::make_unique<sdk::GroupComm>(at, level);
    const cct_comm& g = *group_->raw();
    int inner = -1;  // the parent index of the group's level last mapped
    for (int s = 0; s < g.nlevels; ++s) {
      while (parent.level(++inner).kind() != g.levels[s].kind) {
      }
      to_parent_[s] = inner;
    }
    while (++inner < level && !holds_group(parent, inner)) {
    }
    std::fill(to_parent_.begin() + g.nlevels, to_parent_.end(), inner);
  }

  sdk::Comm comm() const { return sdk::Comm(group_->raw()); }
  int size() const { return group_->size(); }
  // Its members' ranks in the parent, ascending.
  const std::vector<int>& members() const { return group_->members(); }
  // A cost stated on comm(), at the parent's spans, its bisection bytes
  // those of the groups that straddle the parent's halves.
  cct_cost to_parent(const cct_cost& cost) const {
    return moved_spans(cost, to_parent_, straddling_);
  }

 private:
  // The groups of parent level `level` with ranks below and above
  // parent.size() / 2.
  static double straddling_groups(const sdk::Comm& parent, int level) {
    const int half = parent.size() / 2, groups = parent.level(level).groups();
    std::vector<char> low(static_cast<std::size_t>(groups)), high(low.size());
    for (int r = 0; r < parent.size(); ++r)
      (r < half ? low : high)[parent.level(level).group_of(r)] = 1;
    double straddling = 0;
    for (std::size_t g = 0; g < low.size(); ++g) straddling += low[g] && high[g] ? 1 : 0;
    return straddling;
  }
  static int largest_group_member(const sdk::Comm& parent, int level) {
    std::vector<int> sizes(static_cast<std::size_t>(parent.level(level).groups()));
    for (int r = 0; r < parent.size(); ++r) ++sizes[parent.level(level).group_of(r)];
    const auto largest =
        static_cast<int>(std::max_element(sizes.begin(), sizes.end()) - sizes.begin());
    return parent.level(level).leader_of_group(largest);
  }
  // Whether one group of parent level j holds the whole group.
  bool holds_group(const sdk::Comm& parent, int j) const {
    const std::vector<int>& members = group_->members();
    return std::all_of(members.begin(), members.end(), [&](int r) {
      return parent.level(j).group_of(r) == parent.level(j).group_of(members.front());
    });
  }

  double straddling_;
  std::unique_ptr<sdk::GroupComm> group_;
  std::array<int, CCT_COST_SPANS> to_parent_{};
};

// The cost of class A with its default parameters run on `part` (a
// GroupShape or LeadersShape), at the parent's spans; none on a part of
// one rank, where nothing runs.
template <class A, class Part>
cct_cost phase_cost(const Part& part, const cct_coll_args& args) {
  if (part.size() < 2) return {};
  return part.to_parent(default_cost<A>(part.comm(), args));
}

// The groups of level `level` of `parent`, one rank each, as LeadersComm
// makes them, shape only (LeadersComm needs the transport). Levels split
// their ranks only where listed, so the leaders lie in different groups of
// every level above `level`: their messages are at the parent's outermost
// span. They are in rank order across the parent, so their phase's
// bisection bytes (counted on their own halves) stand for the parent's.
class LeadersShape {
 public:
  LeadersShape(const sdk::Comm& parent, int level)
      : comm_{.struct_size = sizeof(cct_comm),
              .abi_version = CCT_ABI_VERSION,
              .rank = 0,
              .size = parent.level(level).groups()} {
    to_parent_.fill(sdk::outer_span(parent));
  }
  LeadersShape(const LeadersShape&) = delete;
  LeadersShape& operator=(const LeadersShape&) = delete;

  sdk::Comm comm() const { return sdk::Comm(&comm_); }
  int size() const { return comm_.size; }
  cct_cost to_parent(const cct_cost& cost) const { return moved_spans(cost, to_parent_); }

 private:
  cct_comm comm_;
  std::array<int, CCT_COST_SPANS> to_parent_{};
};

}  // namespace cct::plugins
