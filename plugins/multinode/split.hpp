// What the multinode algorithms share: where they split the communicator,
// the group and leader communicators of the split (cct/sdk/subcomm.hpp),
// and the algorithm classes they run on those, chosen by parameter.
//
// Where: a communicator that spans nodes lists its levels split by node, so
// that no group of any level spans two nodes; they nest (cct_level), and
// the last one is the node partition (one rank per node leaves no level at
// all). split = 0 gives one leader per node, 1 one per group of the level
// inside it (e.g. per package), and so on. Whether the communicator spans
// nodes is read from level_transport being set, which is the same on every
// rank (its entries are not: a rank alone in its group has none); the
// levels are the same on every rank too, so every rank answers can_use
// alike.
//
// Tags: every phase of a call runs with the call's tag. Phases over
// different transports (a group's shared-memory one, the communicator's
// own one under the leaders) never see each other's messages. Phases over
// the same transport run one after the other as whole collectives: every
// message one phase sends from a to b is received by b in that same
// phase, and p2p matches messages of a pair in the order both sides post
// them, so the next phase's messages can only match the next phase's
// receives (the same argument lets consecutive calls share a tag).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "cct/sdk/subcomm.hpp"

namespace cct::plugins::multinode {

// ---------------------------------------------------------------- parameters

template <std::size_t N>
constexpr std::array<int64_t, N> iota() {
  std::array<int64_t, N> a{};
  for (std::size_t i = 0; i < N; ++i) a[i] = static_cast<int64_t>(i);
  return a;
}

inline constexpr std::array<int64_t, 3> kSplitCandidates = iota<3>();
inline constexpr cct_param_desc kSplitParam{
    .name = "split",
    .doc = "groups with one leader each: 0 = nodes, 1 = the next level inside, 2 = two levels in",
    .type = CCT_PARAM_INT,
    .default_value = 0,
    .candidates = kSplitCandidates.data(),
    .ncandidates = kSplitCandidates.size(),
};

// A parameter choosing one of N algorithms; its doc lists them by value.
template <std::size_t N>
constexpr cct_param_desc choice(const char* name, const char* doc,
                                const std::array<int64_t, N>& candidates) {
  return cct_param_desc{.name = name,
                        .doc = doc,
                        .type = CCT_PARAM_INT,
                        .default_value = 0,
                        .candidates = candidates.data(),
                        .ncandidates = N};
}

inline void check_choice(const char* name, int64_t value, int64_t count) {
  if (value < 0 || value >= count)
    throw sdk::Unsupported(std::string(name) + " " + std::to_string(value) + " is not one of 0.." +
                           std::to_string(count - 1));
}

// ---------------------------------------------------------------- the split

// Throws sdk::Unsupported where the communicator does not span nodes.
// (cost() does not ask: the shapes it gets have no transports.)
inline void require_nodes(const cct_comm& comm) {
  if (comm.level_transport == nullptr || comm.nlevels == 0)
    throw sdk::Unsupported(
        "the communicator is on one node: its own transport shares memory, use the single-node "
        "algorithms");
}

// The index of the level whose groups get one leader each; throws
// sdk::Unsupported where this communicator's levels cannot be split so.
inline int split_level(const cct_comm& comm, int64_t split) {
  check_choice("split", split, static_cast<int64_t>(kSplitCandidates.size()));
  if (split >= comm.nlevels)
    throw sdk::Unsupported("split " + std::to_string(split) + " needs " +
                           std::to_string(split + 1) + " levels, the communicator has " +
                           std::to_string(comm.nlevels));
  return comm.nlevels - 1 - static_cast<int>(split);
}

// Whether every group of `level` is a range of consecutive ranks, the
// groups in rank order: then the groups' members, packed in group order,
// are in rank order.
inline bool groups_are_ranges(const sdk::Level& level, int size) {
  int group = 0;
  for (int r = 0; r < size; ++r) {
    if (level.group_of(r) == group + 1 && r > 0) ++group;
    if (level.group_of(r) != group) return false;
  }
  return true;
}

// The groups of the split level as every rank sees them, and this rank's
// group as a communicator.
class Split {
 public:
  Split(const sdk::Comm& comm, int level)
      : level_(level),
        group_(std::make_unique<sdk::GroupComm>(*comm.raw(), level)),
        members_(static_cast<std::size_t>(comm.level(level).groups())),
        group_of_(static_cast<std::size_t>(comm.size())),
        index_(static_cast<std::size_t>(comm.size())),
        ranges_(groups_are_ranges(comm.level(level), comm.size())) {
    require_nodes(*comm.raw());
    for (int r = 0; r < comm.size(); ++r) {
      auto& m = members_[comm.level(level).group_of(r)];
      group_of_[r] = comm.level(level).group_of(r);
      index_[r] = static_cast<int>(m.size());
      m.push_back(r);
    }
  }

  // The index of the split level in the communicator's levels.
  int level() const { return level_; }
  int groups() const { return static_cast<int>(members_.size()); }
  int group_of(int rank) const { return group_of_[rank]; }
  // The rank of comm rank `rank` in its group (0 for the leader).
  int index_in_group(int rank) const { return index_[rank]; }
  const std::vector<int>& members(int group) const { return members_[group]; }
  // This rank's group; its transport is null when the group is this rank alone.
  sdk::GroupComm& group() const { return *group_; }
  bool alone() const { return group_->size() == 1; }
  bool leads() const { return group_->rank() == 0; }
  // Whether every group is a range of consecutive ranks (groups_are_ranges).
  bool ranges() const { return ranges_; }

 private:
  int level_;
  std::unique_ptr<sdk::GroupComm> group_;
  std::vector<std::vector<int>> members_;  // per group, ascending comm ranks
  std::vector<int> group_of_;              // per comm rank
  std::vector<int> index_;                 // per comm rank
  bool ranges_;
};

// ------------------------------------------------- algorithms run on a part

// An algorithm class prepared on a group or leaders communicator with its
// default parameter values.
class Sub {
 public:
  virtual ~Sub() = default;
  virtual void run(const cct_coll_args& args) = 0;
};

template <class A>
class SubOf final : public Sub {
 public:
  SubOf(const sdk::Comm& comm, std::span<const int64_t> params) : alg_(comm, params) {}
  void run(const cct_coll_args& args) override { alg_.run(args); }

 private:
  A alg_;
};

// Prepares A on `comm` (collective over it) with A's default parameters.
template <class A>
std::unique_ptr<Sub> make_sub(const sdk::Comm& comm) {
  const cct_transport_instance* tr = comm.transport();
  if ((tr->capabilities & A::info.required_caps) != A::info.required_caps)
    throw sdk::Unsupported(std::string(A::info.name) + " needs transport capabilities " +
                           std::to_string(A::info.required_caps) + ", this part's has " +
                           std::to_string(tr->capabilities));
  std::vector<int64_t> defaults;
  for (const cct_param_desc& p : sdk::detail::params_of<A>()) defaults.push_back(p.default_value);
  return std::make_unique<SubOf<A>>(comm, defaults);
}

// The call's arguments for a phase: another collective, root, buffers or count.
inline cct_coll_args phase(const cct_coll_args& a, cct_collective c, const void* sendbuf,
                           void* recvbuf, std::size_t count, int32_t root) {
  cct_coll_args p = a;
  p.collective = c;
  p.sendbuf = sendbuf;
  p.recvbuf = recvbuf;
  p.count = count;
  p.root = root;
  return p;
}

}  // namespace cct::plugins::multinode
