#include "hierarchical/two_level_allgather.hpp"

#include "common/args.hpp"
#include "hierarchical/channel.hpp"

namespace cct::plugins::hierarchical {
namespace {

// A leader receives every block of the other groups and sends each block
// of its own group to every other leader.
std::size_t leader_requests(const Groups& groups, int group, int size) {
  const std::size_t own = groups.members[group].size();
  return (static_cast<std::size_t>(size) - own) + (groups.count() - 1) * own;
}

}  // namespace

template <cct_collective C>
void TwoLevelAllgather<C>::check(const cct::sdk::Comm&, const cct_coll_args&,
                                 std::span<const int64_t> params) {
  validate_level(params[0]);
  validate_chunk(params[1]);
}

// The largest group's leader copies its members' blocks out of their
// channels one after another, sends its group's blocks to every other
// leader at once (the outermost span), and streams the whole result.
// Across the halves: the leaders' sends of their groups' blocks that cross
// theirs, and, in a group that spans both halves, the block of each member
// on the other side from its leader and the result streamed to it.
template <cct_collective C>
cct_cost TwoLevelAllgather<C>::cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                                    std::span<const int64_t> params) {
  const std::size_t split = split_index(levels_of(*comm.raw()), validate_level(params[0]));
  const Groups groups = groups_at(levels_of(*comm.raw()), comm.size(), split);
  const std::size_t chunk = validate_chunk(params[1]);
  const std::size_t block = args.count * elem_size(args);
  if (block == 0 || comm.size() < 2) return {};
  std::size_t members = 0;
  for (const std::vector<int>& m : groups.members) members = std::max(members, m.size());
  const auto span = static_cast<int>(split);
  const auto b = static_cast<double>(block);
  const double across = members_across(groups, comm.size()) * (1 + comm.size()) * b;
  return cct::sdk::CostShape()
      .send(span, static_cast<double>((members - 1) * chunks_in(block, chunk)), 0)
      .copy(static_cast<double>(members * block + std::min(block, chunk)))
      .send(cct::sdk::outer_span(comm), groups.count() > 1 ? 1 : 0,
            static_cast<double>((groups.count() - 1) * members * block))
      .then(stream_cost(span, comm.size() * block, chunk))
      .cross(all_pairs_crossings(groups.count()) * static_cast<double>(members) * b + across);
}

template <cct_collective C>
TwoLevelAllgather<C>::TwoLevelAllgather(const cct::sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm),
      groups_(split_at_level(levels_of(*comm.raw()), comm.size(), validate_level(params[0]))),
      chunk_(validate_chunk(params[1])),
      region_(comm, channel_bytes(comm.size(), chunk_)),
      streamed_(static_cast<std::size_t>(comm.size())),
      stream_(comm.size()),
      requests_(leader_requests(groups_, groups_.group_of[comm.rank()], comm.size())) {}

template <cct_collective C>
BlockLayout TwoLevelAllgather<C>::layout_of(const cct_coll_args& args) {
  if constexpr (C == CCT_ALLGATHERV)
    return {args.recvcounts, args.rdispls, 0, elem_size(args)};
  else
    return {nullptr, nullptr, args.count, elem_size(args)};
}

template <cct_collective C>
void TwoLevelAllgather<C>::run(const cct_coll_args& args) {
  const BlockLayout layout = layout_of(args);
  stream_.assign(layout, comm_.size());
  if (stream_.total_bytes() == 0) return;
  std::byte* out = output_of(args);
  gather(args, layout);
  if (groups_.leader(groups_.group_of[comm_.rank()]) == comm_.rank())
    across_leaders(out, layout, args.tag);
  release(out);
}

// Step 1: every member's block reaches its leader's result buffer.
template <cct_collective C>
void TwoLevelAllgather<C>::gather(const cct_coll_args& args, const BlockLayout& layout) {
  const int self = comm_.rank();
  const int group = groups_.group_of[self];
  const int leader = groups_.leader(group);
  std::byte* out = output_of(args);
  const std::byte* mine = in_place(args) ? out + layout.offset(self) : input_of(args);
  const auto next_chunks = [&](int member) {
    const uint64_t first = streamed_[member];
    streamed_[member] += chunks_in(layout.bytes(member), chunk_);
    return first;
  };
  if (self != leader) {
    const int participants[] = {leader, self};
    Channel(region_.peer(self), comm_.size(), chunk_)
        .write_all(region_, participants, self, mine, layout.bytes(self), next_chunks(self));
    return;
  }
  copy_bytes(out + layout.offset(self), mine, layout.bytes(self));
  for (int member : groups_.members[group])
    if (member != leader)
      Channel(region_.peer(member), comm_.size(), chunk_)
          .read_all(region_, self, out + layout.offset(member), layout.bytes(member),
                    next_chunks(member));
}

// Step 2: each leader sends its group's blocks to every other leader and
// receives theirs, all in flight at once.
template <cct_collective C>
void TwoLevelAllgather<C>::across_leaders(std::byte* out, const BlockLayout& layout, uint32_t tag) {
  const int group = groups_.group_of[comm_.rank()];
  const auto block = [&](int member) { return out + layout.offset(member); };
  std::size_t posted = 0;
  for (int other = 0; other < groups_.count(); ++other) {
    if (other == group) continue;
    for (int member : groups_.members[other])
      comm_.irecv(block(member), layout.bytes(member), groups_.leader(other), tag,
                  requests_[posted++]);
  }
  for (int other = 0; other < groups_.count(); ++other) {
    if (other == group) continue;
    for (int member : groups_.members[group])
      comm_.isend(block(member), layout.bytes(member), groups_.leader(other), tag,
                  requests_[posted++]);
  }
  comm_.waitall(requests_.data(), posted);
}

// Step 3: the leader streams the whole result to its group, each end
// through its own placement of the blocks.
template <cct_collective C>
void TwoLevelAllgather<C>::release(std::byte* out) {
  const int self = comm_.rank();
  const int group = groups_.group_of[self];
  const int leader = groups_.leader(group);
  const std::vector<int>& members = groups_.members[group];
  const std::size_t bytes = stream_.total_bytes();
  const uint64_t first = streamed_[leader];
  streamed_[leader] += chunks_in(bytes, chunk_);
  if (members.size() < 2) return;
  const Channel channel(region_.peer(leader), comm_.size(), chunk_);
  if (leader == self)
    channel.write_with(
        region_, members, self, bytes, first,
        [&](std::byte* slot, std::size_t at, std::size_t n) { stream_.pack(slot, out, at, n); });
  else
    channel.read_with(region_, self, bytes, first,
                      [&](std::size_t at, const std::byte* slot, std::size_t n) {
                        stream_.unpack(out, slot, at, n);
                      });
}

template class TwoLevelAllgather<CCT_ALLGATHER>;
template class TwoLevelAllgather<CCT_ALLGATHERV>;

}  // namespace cct::plugins::hierarchical
