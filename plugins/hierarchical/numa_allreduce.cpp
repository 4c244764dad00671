#include "hierarchical/numa_allreduce.hpp"

#include <cstring>

#include "common/args.hpp"
#include "hierarchical/channel.hpp"

namespace cct::plugins::hierarchical {

void NumaAllreduce::check(const cct::sdk::Comm&, const cct_coll_args&,
                          std::span<const int64_t> params) {
  validate_chunk(params[0]);
}

// The leader's loop over the chunks is the critical path: each chunk is
// handed in by the members and reduced, exchanged with the other leaders
// at once (the outermost span) and combined, and handed out; the members
// copy the last chunk out after it. Across the halves: the leaders'
// partials sent to every other leader that cross theirs, and, in a node
// that spans both halves, the vector of each member on the other side from
// its leader, in and out.
cct_cost NumaAllreduce::cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                             std::span<const int64_t> params) {
  const std::size_t chunk = validate_chunk(params[0]);
  const std::size_t bytes = args.count * elem_size(args);
  if (bytes == 0 || comm.size() < 2) return {};
  const std::size_t numa = numa_index(levels_of(*comm.raw()));
  const Groups nodes = groups_at(levels_of(*comm.raw()), comm.size(), numa);
  std::size_t members = 0;
  for (const std::vector<int>& m : nodes.members) members = std::max(members, m.size());
  const auto chunks = static_cast<double>(chunks_in(bytes, chunk));
  const auto b = static_cast<double>(bytes);
  const double shared = members > 1 ? 1 : 0;
  return cct::sdk::CostShape()
      .send(static_cast<int>(numa), 2 * chunks * shared, 0)
      .send(cct::sdk::outer_span(comm), nodes.count() > 1 ? chunks : 0, (nodes.count() - 1) * b)
      .reduce(static_cast<double>(members - 1 + nodes.count() - 1) * b)
      .copy(2 * b + shared * static_cast<double>(bytes + std::min(bytes, chunk)))
      .cross((all_pairs_crossings(nodes.count()) + 2 * members_across(nodes, comm.size())) * b);
}

NumaAllreduce::NumaAllreduce(const cct::sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm),
      groups_(numa_split(levels_of(*comm.raw()), comm.size())),
      group_(groups_.group_of[comm.rank()]),
      chunk_(validate_chunk(params[0])),
      region_(comm, channel_bytes(comm.size(), chunk_)) {
  if (groups_.leader(group_) == comm.rank()) {
    partials_.resize(groups_.count() * chunk_);
    requests_.resize(2 * (groups_.count() - 1));
  }
}

void NumaAllreduce::run(const cct_coll_args& args) {
  const std::size_t bytes = args.count * elem_size(args);
  if (bytes == 0) return;
  const uint64_t first = chunks_;
  chunks_ += chunks_in(bytes, chunk_);
  if (groups_.leader(group_) == comm_.rank())
    lead(args, bytes, first);
  else
    hand_in_and_collect(args, bytes, first);
}

// A member hands in chunk c through its own channel, then collects the
// result of chunk c - 1 from its leader's: one chunk in flight each way.
// (In place, chunk c of the input is handed in before its result lands.)
void NumaAllreduce::hand_in_and_collect(const cct_coll_args& args, std::size_t bytes,
                                        uint64_t first) {
  const int self = comm_.rank();
  const int leader = groups_.leader(group_);
  const Channel up(region_.peer(self), comm_.size(), chunk_);
  const Channel down(region_.peer(leader), comm_.size(), chunk_);
  const int up_participants[] = {leader, self};
  const std::byte* in = input_of(args);
  std::byte* out = output_of(args);
  auto collect = [&](uint64_t i) {
    std::memcpy(out + i * chunk_, down.slot_to_read(region_, first + i), down.length(bytes, i));
    down.release(self, first + i);
  };
  const uint64_t chunks = chunks_in(bytes, chunk_);
  for (uint64_t i = 0; i < chunks; ++i) {
    std::memcpy(up.slot_to_write(region_, up_participants, self, first + i), in + i * chunk_,
                up.length(bytes, i));
    up.publish(self, first + i);
    if (i > 0) collect(i - 1);
  }
  collect(chunks - 1);
}

// The leader builds each chunk's node partial in its own slot, combines the
// nodes' partials into its result, and publishes that in the same slot.
void NumaAllreduce::lead(const cct_coll_args& args, std::size_t bytes, uint64_t first) {
  const int self = comm_.rank();
  const std::vector<int>& members = groups_.members[group_];
  const Channel down(region_.peer(self), comm_.size(), chunk_);
  const std::byte* in = input_of(args);
  std::byte* out = output_of(args);
  for (uint64_t i = 0; i * chunk_ < bytes; ++i) {
    const std::size_t length = down.length(bytes, i);
    std::byte* slot = down.slot_to_write(region_, members, self, first + i);
    std::memcpy(slot, in + i * chunk_, length);
    reduce_chunk(args, slot, length, first + i);
    combine_nodes(args, slot, out + i * chunk_, length);
    if (members.size() > 1) std::memcpy(slot, out + i * chunk_, length);
    down.publish(self, first + i);
  }
}

// Step 1 for one chunk: the members' chunks, in rank order, into the slot.
void NumaAllreduce::reduce_chunk(const cct_coll_args& args, std::byte* slot, std::size_t length,
                                 uint64_t n) {
  const int self = comm_.rank();
  for (int member : groups_.members[group_]) {
    if (member == self) continue;
    const Channel up(region_.peer(member), comm_.size(), chunk_);
    cct::sdk::reduce_local(slot, up.slot_to_read(region_, n), length / elem_size(args), args.dtype,
                           args.op);
    up.release(self, n);
  }
}

// Step 2 for one chunk: result = partial of node 0 (op) node 1 (op) ...,
// the same order on every leader.
void NumaAllreduce::combine_nodes(const cct_coll_args& args, std::byte* slot, std::byte* result,
                                  std::size_t length) {
  const int nodes = groups_.count();
  std::size_t posted = 0;
  for (int node = 0; node < nodes; ++node)
    if (node != group_)
      comm_.irecv(partials_.data() + node * chunk_, length, groups_.leader(node), args.tag,
                  requests_[posted++]);
  for (int node = 0; node < nodes; ++node)
    if (node != group_)
      comm_.isend(slot, length, groups_.leader(node), args.tag, requests_[posted++]);
  comm_.waitall(requests_.data(), posted);
  auto partial = [&](int node) { return node == group_ ? slot : partials_.data() + node * chunk_; };
  std::memcpy(result, partial(0), length);
  for (int node = 1; node < nodes; ++node)
    cct::sdk::reduce_local(result, partial(node), length / elem_size(args), args.dtype, args.op);
}

}  // namespace cct::plugins::hierarchical
