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

void TwoLevelAllgather::check(const cct::sdk::Comm&, const cct_coll_args&,
                              std::span<const int64_t> params) {
  validate_level(params[0]);
  validate_chunk(params[1]);
}

TwoLevelAllgather::TwoLevelAllgather(const cct::sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm),
      groups_(split_at_level(levels_of(*comm.raw()), comm.size(), validate_level(params[0]))),
      chunk_(validate_chunk(params[1])),
      region_(comm, channel_bytes(comm.size(), chunk_)),
      requests_(leader_requests(groups_, groups_.group_of[comm.rank()], comm.size())) {}

void TwoLevelAllgather::run(const cct_coll_args& args) {
  const std::size_t block = args.count * elem_size(args);
  if (block == 0) return;
  std::byte* out = output_of(args);
  gather(args, block);
  if (groups_.leader(groups_.group_of[comm_.rank()]) == comm_.rank())
    across_leaders(out, block, args.tag);
  release(out, block * comm_.size());
}

// Step 1: every member's block reaches its leader's result buffer.
void TwoLevelAllgather::gather(const cct_coll_args& args, std::size_t block) {
  const int self = comm_.rank();
  const int group = groups_.group_of[self];
  const int leader = groups_.leader(group);
  const uint64_t first = gathered_;
  gathered_ += chunks_in(block, chunk_);
  const std::byte* mine = input_of(args) + (in_place(args) ? self * block : 0);
  std::byte* out = output_of(args);
  if (self != leader) {
    const int participants[] = {leader, self};
    Channel(region_.peer(self), comm_.size(), chunk_)
        .write_all(region_, participants, self, mine, block, first);
    return;
  }
  copy_bytes(out + self * block, mine, block);
  for (int member : groups_.members[group])
    if (member != leader)
      Channel(region_.peer(member), comm_.size(), chunk_)
          .read_all(region_, self, out + member * block, block, first);
}

// Step 2: each leader sends its group's blocks to every other leader and
// receives theirs, all in flight at once.
void TwoLevelAllgather::across_leaders(std::byte* out, std::size_t block, uint32_t tag) {
  const int group = groups_.group_of[comm_.rank()];
  std::size_t posted = 0;
  for (int other = 0; other < groups_.count(); ++other) {
    if (other == group) continue;
    for (int member : groups_.members[other])
      comm_.irecv(out + member * block, block, groups_.leader(other), tag, requests_[posted++]);
  }
  for (int other = 0; other < groups_.count(); ++other) {
    if (other == group) continue;
    for (int member : groups_.members[group])
      comm_.isend(out + member * block, block, groups_.leader(other), tag, requests_[posted++]);
  }
  comm_.waitall(requests_.data(), posted);
}

// Step 3: the leader streams the whole result to its group.
void TwoLevelAllgather::release(std::byte* out, std::size_t bytes) {
  const int self = comm_.rank();
  const int group = groups_.group_of[self];
  const std::vector<int>& members = groups_.members[group];
  const uint64_t chunks = chunks_in(bytes, chunk_);
  const uint64_t first = released_;
  released_ += chunks;
  if (members.size() < 2) return;
  const Channel channel(region_.peer(groups_.leader(group)), comm_.size(), chunk_);
  if (groups_.leader(group) == self)
    channel.write_all(region_, members, self, out, bytes, first);
  else
    channel.read_all(region_, self, out, bytes, first);
}

}  // namespace cct::plugins::hierarchical
