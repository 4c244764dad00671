#include <bit>
#include <cstring>

#include "allgather/bruck.hpp"
#include "allgather/recursive_doubling.hpp"
#include "allgather/ring.hpp"
#include "common/args.hpp"
#include "gather/binomial.hpp"
#include "gather/linear.hpp"
#include "multinode/multinode.hpp"
#include "multinode/phases.hpp"

namespace cct::plugins::multinode {
namespace {

// f.template operator()<A>() with the gather class A that `inner` picks.
template <class F>
auto with_gather(int64_t inner, F f) {
  if (inner == 1) return f.template operator()<gather::Linear>();
  return f.template operator()<gather::Binomial>();
}

// f.template operator()<A>() with the class A that `outer` picks.
template <class F>
auto with_outer(int64_t outer, F f) {
  switch (outer) {
    case 0: return f.template operator()<allgather::Ring>();
    case 1: return f.template operator()<allgather::Bruck>();
    default: return f.template operator()<allgather::RecursiveDoubling>();
  }
}

std::unique_ptr<Sub> make_gather(int64_t inner, const sdk::Comm& group) {
  return with_gather(inner, [&]<class A>() { return make_sub<A>(group); });
}

std::unique_ptr<Sub> make_outer(int64_t outer, const sdk::Comm& leaders) {
  return with_outer(outer, [&]<class A>() { return make_sub<A>(leaders); });
}

// Also refuses what only this collective cannot do: groups of unequal size
// and, for recursive doubling, a number of groups that is no power of two.
// Both read the levels, which every rank holds alike.
int checked_level(const sdk::Comm& comm, std::span<const int64_t> params) {
  const int level = split_level(*comm.raw(), params[0]);
  check_choice("inner", params[1], Allgather::kInner.size());
  check_choice("outer", params[2], Allgather::kInner.size());
  const sdk::Level l = comm.level(level);
  std::vector<int> sizes(static_cast<std::size_t>(l.groups()));
  for (int r = 0; r < comm.size(); ++r) ++sizes[l.group_of(r)];
  for (int g = 1; g < l.groups(); ++g)
    if (sizes[g] != sizes[0])
      throw sdk::Unsupported("groups of unequal size (" + std::to_string(sizes[0]) + " and " +
                             std::to_string(sizes[g]) +
                             " ranks): the leaders exchange equal blocks");
  if (params[2] == 2 && !std::has_single_bit(static_cast<unsigned>(l.groups())))
    throw sdk::Unsupported("recursive_doubling among " + std::to_string(l.groups()) +
                           " groups: needs a power of two");
  return level;
}

}  // namespace

void Allgather::check(const sdk::Comm& comm, const cct_coll_args&,
                      std::span<const int64_t> params) {
  require_nodes(*comm.raw());
  checked_level(comm, params);
}

// The group's gather to its leader (a copy when alone), the leaders'
// allgather of the groups' pieces, the unpacking into rank order where the
// groups are no ranges, and the group's bcast of the whole, one after
// another. Across the halves: the leaders' phase's crossings, and a group
// phase's in each group that spans both halves (cost_phases.hpp).
cct_cost Allgather::cost(const sdk::Comm& comm, const cct_coll_args& args,
                         std::span<const int64_t> params) {
  const int level = checked_level(comm, params);
  if (args.count == 0) return {};
  const double all = sdk::bytes_of(args, args.count * comm.size());
  const GroupShape group(comm, level);
  const LeadersShape leaders(comm, level);
  const std::size_t per = group.size();  // the groups are of equal size
  const cct_coll_args gather = phase(args, CCT_GATHER, nullptr, nullptr, args.count, 0);
  const cct_coll_args outer =
      phase(args, CCT_ALLGATHER, CCT_IN_PLACE, nullptr, args.count * per, 0);
  const cct_coll_args bcast = phase(args, CCT_BCAST, nullptr, nullptr, args.count * comm.size(), 0);
  return sdk::CostShape()
      .then(with_gather(params[1], [&]<class A>() { return phase_cost<A>(group, gather); }))
      .copy(per == 1 ? sdk::bytes_of(args, args.count) : 0)
      .then(with_outer(params[2], [&]<class A>() { return phase_cost<A>(leaders, outer); }))
      .copy(groups_are_ranges(comm.level(level), comm.size()) ? 0 : all)
      .then(with_bcast(params[1], [&]<class A>() { return phase_cost<A>(group, bcast); }));
}

Allgather::Allgather(const sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm), split_(comm, checked_level(comm, params)), ranges_(split_.ranges()) {
  if (!split_.alone()) {
    const sdk::Comm group(split_.group().raw());
    gather_ = make_gather(params[1], group);
    bcast_ = make_bcast(params[1], group);
  }
  if (split_.leads()) {
    leaders_ = std::make_unique<sdk::LeadersComm>(*comm.raw(), split_.level());
    outer_ = make_outer(params[2], sdk::Comm(leaders_->raw()));
  }
}

// Packed order: group g's blocks, in the order of its members, form piece
// g, pieces in group order. A member's block may already lie in recvbuf
// (in place); gather reads it from there.
void Allgather::run(const cct_coll_args& args) {
  if (args.count == 0) return;
  const std::size_t block = args.count * elem_size(args);
  const int me = comm_.rank();
  const int size = comm_.size();
  const int group = split_.group_of(me);
  const int per = static_cast<int>(split_.members(group).size());
  const bool leads = split_.leads();
  auto* out = output_of(args);
  const std::byte* mine = in_place(args) ? out + me * block : input_of(args);
  std::byte* packed = nullptr;
  if (leads) packed = ranges_ ? out : packed_.get(block * size);
  std::byte* piece = leads ? packed + group * per * block : nullptr;
  if (gather_) {
    // In place with ranges, the leader's block is already at the head of its piece.
    const bool leader_in_place = leads && ranges_ && in_place(args);
    gather_->run(
        phase(args, CCT_GATHER, leader_in_place ? CCT_IN_PLACE : mine, piece, args.count, 0));
  } else if (leads) {
    copy_bytes(piece, mine, block);
  }
  if (outer_) {
    outer_->run(phase(args, CCT_ALLGATHER, CCT_IN_PLACE, packed, args.count * per, 0));
    if (!ranges_)
      for (int g = 0; g < split_.groups(); ++g)
        for (int j = 0; j < per; ++j)
          std::memcpy(out + split_.members(g)[j] * block, packed + (g * per + j) * block, block);
  }
  if (bcast_) bcast_->run(phase(args, CCT_BCAST, nullptr, out, args.count * size, 0));
}

}  // namespace cct::plugins::multinode
