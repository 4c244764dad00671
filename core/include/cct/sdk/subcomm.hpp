// ccautotune C++ SDK: views of part of a communicator, so that an algorithm
// can run other algorithm classes on it (the multinode algorithms run a
// shared-memory algorithm inside each node and a p2p one between nodes).
//
//   GroupComm   this rank's group at level i of the communicator: ranks
//               are the group's members in ascending comm rank, the
//               transport is cct_comm.level_transport[i] (shared memory
//               inside a node), the levels are those below i restricted
//               to the group.
//   LeadersComm one rank per group of level i (by default the group's
//               leader, its lowest rank), p2p only, over the
//               communicator's own transport. Which comm rank acts for a
//               group may change from call to call (a rooted call lets the
//               root act for its group).
//
// Both are cct_comm structures an algorithm class takes as any other
// (cct::sdk::Comm(view.raw())). They own everything they point to and
// neither copy nor move (a Comm made from them points into them): hold
// them by unique_ptr or optional. Building one is local (no
// communication); algorithms prepared on them are collective over their
// ranks as usual.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "cct/sdk/comm.hpp"

namespace cct::sdk {

// The comm ranks of group `group` at level `level`, ascending.
inline std::vector<int> members_of_group(const cct_comm& comm, int level, int group) {
  std::vector<int> members;
  for (int r = 0; r < comm.size; ++r)
    if (comm.levels[level].group_of[r] == group) members.push_back(r);
  return members;
}

inline void check_level_index(const cct_comm& comm, int level) {
  if (level < 0 || level >= comm.nlevels)
    throw std::out_of_range("level " + std::to_string(level) + " of a communicator with " +
                            std::to_string(comm.nlevels) + " levels");
}

// This rank's group at level `level` of `parent`, as a communicator.
//
// rank/size: the index of this rank among the group's members (ascending
// comm rank, so the leader is rank 0) and their number.
// transport: parent.level_transport[level], or NULL where the parent binds
// none there: always for a group of one rank (nothing to run), and on a
// communicator that does not span nodes (level_transport NULL). Run an
// algorithm on the group only where transport is not NULL.
// levels: the parent's levels below `level`, each restricted to the group
// (groups renumbered in order of their lowest member) and listed only
// where it still splits the group and differs from the one kept before it,
// as cct_level says. Every rank of the group computes the same levels.
// level_transport: NULL when the parent has none, else one entry per kept
// level: the parent's transport of that level where this rank's group
// there lies wholly inside this group (its ranks are then the restricted
// group's, in the same order), else NULL.
class GroupComm {
 public:
  GroupComm(const cct_comm& parent, int level) {
    check_level_index(parent, level);
    members_ = members_of_group(parent, level, parent.levels[level].group_of[parent.rank]);
    const int size = static_cast<int>(members_.size());
    const int rank = static_cast<int>(std::find(members_.begin(), members_.end(), parent.rank) -
                                      members_.begin());
    for (int j = 0; j < level; ++j) keep_level_below(parent, j);
    for (std::size_t i = 0; i < group_of_.size(); ++i) levels_[i].group_of = group_of_[i].data();
    if (parent.level_transport == nullptr) level_transport_.clear();
    cct_transport_instance* tr =
        parent.level_transport != nullptr ? parent.level_transport[level] : nullptr;
    if (tr != nullptr && (tr->size != size || tr->rank != rank))
      throw std::logic_error("the transport of level " + std::to_string(level) + " has rank " +
                             std::to_string(tr->rank) + " of " + std::to_string(tr->size) +
                             ", its group rank " + std::to_string(rank) + " of " +
                             std::to_string(size));
    comm_ =
        cct_comm{.struct_size = sizeof(cct_comm),
                 .abi_version = CCT_ABI_VERSION,
                 .rank = rank,
                 .size = size,
                 .transport = tr,
                 .nlevels = static_cast<int32_t>(levels_.size()),
                 .levels = levels_.empty() ? nullptr : levels_.data(),
                 .level_transport = level_transport_.empty() ? nullptr : level_transport_.data(),
                 .library = nullptr,
                 .timeout_s = timeout_of(parent)};
  }
  GroupComm(const GroupComm&) = delete;
  GroupComm& operator=(const GroupComm&) = delete;

  const cct_comm* raw() const { return &comm_; }
  int rank() const { return comm_.rank; }
  int size() const { return comm_.size; }
  cct_transport_instance* transport() const { return comm_.transport; }
  // The comm rank of group rank r; members()[0] is the leader.
  int parent_rank(int r) const { return members_[r]; }
  const std::vector<int>& members() const { return members_; }

 private:
  // Parent level j restricted to the members (groups renumbered in order of
  // their lowest member): kept where it still splits them and differs from
  // the level kept before it, with the parent's transport of that level
  // where this rank's group there lies wholly inside the members.
  void keep_level_below(const cct_comm& parent, int j) {
    const cct_level& l = parent.levels[j];
    std::vector<int32_t> group_of, seen;  // seen: parent groups, by lowest member
    for (int m : members_) {
      const auto at = std::find(seen.begin(), seen.end(), l.group_of[m]);
      group_of.push_back(static_cast<int32_t>(at - seen.begin()));
      if (at == seen.end()) seen.push_back(l.group_of[m]);
    }
    const auto groups = static_cast<int32_t>(seen.size());
    if (groups <= 1 || groups >= static_cast<int32_t>(members_.size())) return;
    if (!group_of_.empty() && group_of_.back() == group_of) return;
    group_of_.push_back(std::move(group_of));
    levels_.push_back(cct_level{l.kind, groups, nullptr});  // group_of set once all are kept
    level_transport_.push_back(group_inside(parent, j) ? parent.level_transport[j] : nullptr);
  }
  // Whether this rank's group at parent level j lies wholly inside the
  // members (then its transport serves the restricted group as it is).
  bool group_inside(const cct_comm& parent, int j) const {
    if (parent.level_transport == nullptr) return false;
    const int32_t* group_of = parent.levels[j].group_of;
    const int32_t mine = group_of[parent.rank];
    const auto in_group = [&](int r) { return group_of[r] == mine; };
    int whole = 0;
    for (int r = 0; r < parent.size; ++r) whole += in_group(r);
    return whole == std::count_if(members_.begin(), members_.end(), in_group);
  }

  std::vector<int> members_;
  std::vector<std::vector<int32_t>> group_of_;  // per kept level, per group rank
  std::vector<cct_level> levels_;
  std::vector<cct_transport_instance*> level_transport_;
  cct_comm comm_{};
};

class LeadersComm;

namespace detail {
inline cct_status leaders_isend(cct_transport_instance* self, const void* buf, size_t bytes,
                                int32_t peer, uint32_t tag, cct_request* req);
inline cct_status leaders_irecv(cct_transport_instance* self, void* buf, size_t bytes, int32_t peer,
                                uint32_t tag, cct_request* req);
inline cct_status leaders_test(cct_transport_instance* self, cct_request* req, int* done);
inline cct_status leaders_waitall(cct_transport_instance* self, cct_request* reqs, size_t count);

inline constexpr cct_p2p_ops kLeadersP2p{
    .struct_size = sizeof(cct_p2p_ops),
    .abi_version = CCT_ABI_VERSION,
    .isend = &leaders_isend,
    .irecv = &leaders_irecv,
    .test = &leaders_test,
    .waitall = &leaders_waitall,
};
}  // namespace detail

// The groups of level `level` of `parent`, one rank each, as a
// communicator: rank g stands for group g, size = the number of groups.
// This rank's rank in it is its own group's index, whoever acts for that
// group.
//
// Its transport has p2p only (capabilities: the parent's P2P and
// SINGLE_COPY bits): isend/irecv translate the peer through a table,
// member(g) = the comm rank acting for group g, and go to the parent's
// transport with the tag and request unchanged; test and waitall go
// straight through. A failing call copies the parent's last_error (with
// the translated peer) into this transport's, so check_status reports the
// parent's reason. levels: none (nlevels 0), level_transport NULL.
//
// The table starts with every group's leader (its lowest comm rank).
// set_member() may change it between calls, identically on every rank
// that takes part (e.g. from the call's root): a rooted call where the
// root acts for its own group spares the hop between the root and its
// group's leader. Only the rank member(g) may run a call for group g;
// other ranks of the group do not take part. A rank builds the view (and
// prepares algorithms on it) only where it may act for its group; since
// several ranks of a group may then prepare as the same rank, algorithms
// prepared on it must prepare without communicating (the p2p algorithms
// build trees and buffers only) and keep no state that pairs calls across
// ranks.
class LeadersComm {
 public:
  LeadersComm(const cct_comm& parent, int level) : parent_(parent.transport) {
    check_level_index(parent, level);
    if (parent_ == nullptr || parent_->p2p == nullptr)
      throw Unsupported("the communicator's transport has no p2p for the group leaders");
    const cct_level& l = parent.levels[level];
    leaders_.assign(static_cast<std::size_t>(l.groups), -1);
    for (int r = parent.size - 1; r >= 0; --r) leaders_[l.group_of[r]] = r;
    group_of_.assign(l.group_of, l.group_of + parent.size);
    table_ = leaders_;
    inst_ = cct_transport_instance{};
    inst_.struct_size = sizeof(cct_transport_instance);
    inst_.abi_version = CCT_ABI_VERSION;
    inst_.rank = l.group_of[parent.rank];
    inst_.size = l.groups;
    inst_.capabilities = parent_->capabilities & (CCT_CAP_P2P | CCT_CAP_SINGLE_COPY);
    inst_.p2p = &detail::kLeadersP2p;
    inst_.state = this;
    comm_ = cct_comm{.struct_size = sizeof(cct_comm),
                     .abi_version = CCT_ABI_VERSION,
                     .rank = inst_.rank,
                     .size = inst_.size,
                     .transport = &inst_,
                     .nlevels = 0,
                     .levels = nullptr,
                     .level_transport = nullptr,
                     .library = nullptr,
                     .timeout_s = timeout_of(parent)};
  }
  LeadersComm(const LeadersComm&) = delete;
  LeadersComm& operator=(const LeadersComm&) = delete;

  const cct_comm* raw() const { return &comm_; }
  int rank() const { return comm_.rank; }
  int size() const { return comm_.size; }
  // The lowest comm rank of group g.
  int leader(int group) const { return leaders_[group]; }
  // The comm rank acting for group g in the calls to come.
  int member(int group) const { return table_[group]; }
  // Lets comm rank `rank` (of group g) act for group g from now on.
  void set_member(int group, int rank) {
    if (group < 0 || group >= size() || rank < 0 || rank >= static_cast<int>(group_of_.size()) ||
        group_of_[rank] != group)
      throw std::invalid_argument("rank " + std::to_string(rank) + " cannot act for group " +
                                  std::to_string(group));
    table_[group] = rank;
  }
  // Back to every group's leader.
  void reset_members() { table_ = leaders_; }
  cct_transport_instance* parent_transport() const { return parent_; }

 private:
  cct_transport_instance* parent_;
  std::vector<int> leaders_;   // per group
  std::vector<int> group_of_;  // per comm rank
  std::vector<int> table_;     // per group: the comm rank acting for it
  cct_transport_instance inst_{};
  cct_comm comm_{};
};

namespace detail {

inline LeadersComm& leaders_of(cct_transport_instance* self) {
  return *static_cast<LeadersComm*>(self->state);
}

// The parent's reason for a failure, with the peer translated.
inline cct_status pass_on(cct_transport_instance* self, cct_status s, int32_t peer = -1,
                          int32_t translated = -1) {
  if (s == CCT_OK) return s;
  const cct_error& why = leaders_of(self).parent_transport()->last_error;
  if (peer >= 0)
    std::snprintf(self->last_error.message, sizeof self->last_error.message,
                  "%.200s (leader %d is comm rank %d)", why.message, peer, translated);
  else
    self->last_error = why;
  return s;
}

inline cct_status bad_peer(cct_transport_instance* self, int32_t peer) {
  std::snprintf(self->last_error.message, sizeof self->last_error.message,
                "peer %d is not a leader (0..%d)", peer, self->size - 1);
  return CCT_ERR_INVALID_ARG;
}

inline cct_status leaders_isend(cct_transport_instance* self, const void* buf, size_t bytes,
                                int32_t peer, uint32_t tag, cct_request* req) {
  if (peer < 0 || peer >= self->size) return bad_peer(self, peer);
  const LeadersComm& l = leaders_of(self);
  cct_transport_instance* p = l.parent_transport();
  const int32_t to = l.member(peer);
  return pass_on(self, p->p2p->isend(p, buf, bytes, to, tag, req), peer, to);
}

inline cct_status leaders_irecv(cct_transport_instance* self, void* buf, size_t bytes, int32_t peer,
                                uint32_t tag, cct_request* req) {
  if (peer < 0 || peer >= self->size) return bad_peer(self, peer);
  const LeadersComm& l = leaders_of(self);
  cct_transport_instance* p = l.parent_transport();
  const int32_t from = l.member(peer);
  return pass_on(self, p->p2p->irecv(p, buf, bytes, from, tag, req), peer, from);
}

inline cct_status leaders_test(cct_transport_instance* self, cct_request* req, int* done) {
  cct_transport_instance* p = leaders_of(self).parent_transport();
  return pass_on(self, p->p2p->test(p, req, done));
}

inline cct_status leaders_waitall(cct_transport_instance* self, cct_request* reqs, size_t count) {
  cct_transport_instance* p = leaders_of(self).parent_transport();
  return pass_on(self, p->p2p->waitall(p, reqs, count));
}

}  // namespace detail

}  // namespace cct::sdk
