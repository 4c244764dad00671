#include "hierarchical/two_level_bcast.hpp"

#include "common/rooted.hpp"
#include "hierarchical/channel.hpp"

namespace cct::plugins::hierarchical {

void TwoLevelBcast::check(const cct::sdk::Comm&, const cct_coll_args&,
                          std::span<const int64_t> params) {
  validate_level(params[0]);
  validate_chunk(params[1]);
}

// The deepest leader gets the buffer after the leaders' binomial rounds
// (between groups: the outermost span), then streams it to its group.
// Across the halves: the buffer on the leaders' tree edges that cross
// theirs, and to each member of a group that spans both halves on the
// other side from its leader.
cct_cost TwoLevelBcast::cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                             std::span<const int64_t> params) {
  const std::size_t bytes = rooted_bytes(args, comm.size());
  if (bytes == 0 || comm.size() < 2) return {};
  const std::size_t split = split_index(levels_of(*comm.raw()), validate_level(params[0]));
  const Groups groups = groups_at(levels_of(*comm.raw()), comm.size(), split);
  const double rounds = binomial_depth(groups.count());
  const double crossings = binomial_crossings(groups.count()) + members_across(groups, comm.size());
  return cct::sdk::CostShape()
      .send(cct::sdk::outer_span(comm), rounds, rounds * static_cast<double>(bytes))
      .then(stream_cost(static_cast<int>(split), bytes, validate_chunk(params[1])))
      .cross(crossings * static_cast<double>(bytes));
}

TwoLevelBcast::TwoLevelBcast(const cct::sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm),
      groups_(split_at_level(levels_of(*comm.raw()), comm.size(), validate_level(params[0]))),
      chunk_(validate_chunk(params[1])),
      region_(comm, channel_bytes(comm.size(), chunk_)),
      sends_(static_cast<std::size_t>(binomial_depth(groups_.count()))) {}

void TwoLevelBcast::run(const cct_coll_args& args) {
  const std::size_t bytes = rooted_bytes(args, comm_.size());
  if (bytes == 0) return;
  auto* buf = static_cast<std::byte*>(args.recvbuf);
  across_leaders(buf, bytes, args.root, args.tag);
  within_group(buf, bytes, args.root);
  comm_.waitall(sends_.data(), posted_);
}

// A binomial tree over the groups renumbered around the root's group; this
// rank takes part when it leads its group in this call. The sends are left
// in flight (run() waits for them after feeding the group).
void TwoLevelBcast::across_leaders(std::byte* buf, std::size_t bytes, int root, uint32_t tag) {
  posted_ = 0;
  const int ngroups = groups_.count();
  const int group = groups_.group_of[comm_.rank()];
  if (groups_.call_leader(group, root) != comm_.rank()) return;
  const int root_group = groups_.group_of[root];
  const int vgroup = to_virtual(group, root_group, ngroups);
  auto leader_of = [&](int v) {
    return groups_.call_leader(to_real(v, root_group, ngroups), root);
  };
  if (vgroup != 0) comm_.recv(buf, bytes, leader_of(vgroup - (vgroup & -vgroup)), tag);
  for (int span = binomial_span(vgroup, ngroups) / 2; span >= 1; span /= 2)
    if (vgroup + span < ngroups)
      comm_.isend(buf, bytes, leader_of(vgroup + span), tag, sends_[posted_++]);
}

// The call's leader writes the buffer into the group's channel chunk by
// chunk; every other member copies each chunk out.
void TwoLevelBcast::within_group(std::byte* buf, std::size_t bytes, int root) {
  const int group = groups_.group_of[comm_.rank()];
  const std::vector<int>& members = groups_.members[group];
  const uint64_t chunks = chunks_in(bytes, chunk_);
  const uint64_t first = chunks_;
  chunks_ += chunks;
  if (members.size() < 2) return;
  const Channel channel(region_.peer(groups_.leader(group)), comm_.size(), chunk_);
  const int self = comm_.rank();
  if (groups_.call_leader(group, root) == self)
    channel.write_all(region_, members, self, buf, bytes, first);
  else
    channel.read_all(region_, self, buf, bytes, first);
}

}  // namespace cct::plugins::hierarchical
