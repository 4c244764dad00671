#include <algorithm>
#include <cstring>

#include "common/args.hpp"
#include "multinode/multinode.hpp"
#include "multinode/phases.hpp"
#include "reduce_scatter/recursive_halving.hpp"
#include "reduce_scatter/ring.hpp"
#include "scatterv/linear.hpp"

namespace cct::plugins::multinode {
namespace {

// The leaders' pieces differ in size whenever the groups do, so the outer
// phase is always the counted form.
template <class F>
auto with_outer(int64_t outer, F f) {
  if (outer == 0) return f.template operator()<reduce_scatter::Ring<CCT_REDUCE_SCATTER>>();
  return f.template operator()<reduce_scatter::RecursiveHalving<CCT_REDUCE_SCATTER>>();
}

std::unique_ptr<Sub> make_outer(int64_t outer, const sdk::Comm& leaders) {
  return with_outer(outer, [&]<class A>() { return make_sub<A>(leaders); });
}

template <cct_collective C>
int checked_level(const sdk::Comm& comm, std::span<const int64_t> params) {
  const int level = split_level(*comm.raw(), params[0]);
  check_choice("inner", params[1], ReduceScatter<C>::kInner.size());
  check_choice("outer", params[2], ReduceScatter<C>::kOuter.size());
  return level;
}

}  // namespace

template <cct_collective C>
void ReduceScatter<C>::check(const sdk::Comm& comm, const cct_coll_args&,
                             std::span<const int64_t> params) {
  require_nodes(*comm.raw());
  checked_level<C>(comm, params);
}

// The largest group's reduce of the whole vector to its leader, the
// leader's packing in group order where the groups are no ranges, the
// leaders' reduce-scatter of the groups' pieces, and the group's scatterv
// of its piece, one after another. Across the halves: the leaders' phase's
// crossings, and a group phase's in each group that spans both halves
// (cost_phases.hpp).
template <cct_collective C>
cct_cost ReduceScatter<C>::cost(const sdk::Comm& comm, const cct_coll_args& args,
                                std::span<const int64_t> params) {
  const int level = checked_level<C>(comm, params);
  reduce_scatter::RankBlocks ranks;
  const CountedBlocks& blocks = ranks.of(args, comm.size());
  if (blocks.total_bytes() == 0) return {};
  const sdk::Level split = comm.level(level);
  std::vector<std::size_t> pieces(static_cast<std::size_t>(split.groups()));
  for (int r = 0; r < comm.size(); ++r) pieces[split.group_of(r)] += blocks.count(r);
  const GroupShape group(comm, level);
  const LeadersShape leaders(comm, level);
  std::vector<std::size_t> member_counts, member_displs;
  for (int r : group.members()) {
    member_displs.push_back(member_displs.empty() ? 0
                                                  : member_displs.back() + member_counts.back());
    member_counts.push_back(blocks.count(r));
  }
  const cct_coll_args reduce =
      phase(args, CCT_REDUCE, nullptr, nullptr, blocks.total_bytes() / elem_size(args), 0);
  // count: the pieces as the equal blocks a cost reads (cct_algorithm_desc.cost).
  cct_coll_args outer = phase(args, CCT_REDUCE_SCATTER, nullptr, nullptr,
                              *std::max_element(pieces.begin(), pieces.end()), 0);
  outer.recvcounts = pieces.data();
  cct_coll_args scatter = phase(args, CCT_SCATTERV, nullptr, nullptr, member_counts[0], 0);
  scatter.sendcounts = member_counts.data();
  scatter.sdispls = member_displs.data();
  const bool packs = !groups_are_ranges(split, comm.size());
  return sdk::CostShape()
      .then(with_reduce(params[1], [&]<class A>() { return phase_cost<A>(group, reduce); }))
      .copy(packs ? static_cast<double>(blocks.total_bytes()) : 0)
      .then(with_outer(params[2], [&]<class A>() { return phase_cost<A>(leaders, outer); }))
      .then(phase_cost<scatterv::Linear>(group, scatter));
}

// The group's reduce and scatterv are prepared in this order on every
// member, so their shared regions are allocated in the same order on all.
template <cct_collective C>
ReduceScatter<C>::ReduceScatter(const sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm),
      split_(comm, checked_level<C>(comm, params)),
      ranges_(split_.ranges()),
      pieces_(static_cast<std::size_t>(split_.groups())),
      member_counts_(split_.members(split_.group_of(comm.rank())).size()),
      member_displs_(member_counts_.size()) {
  if (!split_.alone()) {
    const sdk::Comm group(split_.group().raw());
    reduce_ = make_reduce(params[1], group);
    scatter_ = make_sub<scatterv::Linear>(group);
  }
  if (split_.leads()) {
    leaders_ = std::make_unique<sdk::LeadersComm>(*comm.raw(), split_.level());
    outer_ = make_outer(params[2], sdk::Comm(leaders_->raw()));
  }
}

// Each group's piece (its members' blocks summed), and this group's blocks
// within its piece.
template <cct_collective C>
void ReduceScatter<C>::count_pieces(const CountedBlocks& blocks) {
  for (int g = 0; g < split_.groups(); ++g) {
    pieces_[g] = 0;
    for (int r : split_.members(g)) pieces_[g] += blocks.count(r);
  }
  const auto& mine = split_.members(split_.group_of(comm_.rank()));
  std::size_t displ = 0;
  for (std::size_t j = 0; j < mine.size(); ++j) {
    member_counts_[j] = blocks.count(mine[j]);
    member_displs_[j] = displ;
    displ += member_counts_[j];
  }
}

// On a leader: its group's reduction of the whole vector, in group order.
// A member hands its input to the group's reduce as a plain send buffer.
template <cct_collective C>
const std::byte* ReduceScatter<C>::reduced(const cct_coll_args& args, const CountedBlocks& blocks) {
  const std::size_t count = blocks.total_bytes() / elem_size(args);
  const std::byte* whole = input_of(args);
  if (reduce_) {
    std::byte* out = split_.leads() ? whole_.get(blocks.total_bytes()) : nullptr;
    reduce_->run(phase(args, CCT_REDUCE, whole, out, count, 0));
    whole = out;
  }
  if (!split_.leads() || ranges_) return whole;
  std::byte* packed = packed_.get(blocks.total_bytes());
  std::size_t at = 0;
  for (int g = 0; g < split_.groups(); ++g)
    for (int r : split_.members(g)) {
      std::memcpy(packed + at, whole + blocks.offset(r), blocks.bytes(r));
      at += blocks.bytes(r);
    }
  return packed;
}

// The leaders reduce-scatter into the group's piece, which a leader alone
// in its group receives straight into its receive buffer (in place when
// the call is and its input is still where the call put it).
template <cct_collective C>
void ReduceScatter<C>::run(const cct_coll_args& args) {
  const CountedBlocks& blocks = ranks_.of(args, comm_.size());
  if (blocks.total_bytes() == 0) return;
  count_pieces(blocks);
  const std::byte* whole = reduced(args, blocks);
  const std::size_t elem = elem_size(args);
  const int group = split_.group_of(comm_.rank());
  std::byte* piece = nullptr;
  if (outer_) {
    piece = scatter_ ? piece_.get(pieces_[group] * elem) : output_of(args);
    const bool keep = whole == static_cast<const std::byte*>(piece);
    cct_coll_args p = phase(args, CCT_REDUCE_SCATTER, keep ? CCT_IN_PLACE : whole, piece, 0, 0);
    p.recvcounts = pieces_.data();
    outer_->run(p);
  }
  if (scatter_) {
    cct_coll_args p =
        phase(args, CCT_SCATTERV, piece, args.recvbuf, member_counts_[split_.group().rank()], 0);
    p.sendcounts = member_counts_.data();
    p.sdispls = member_displs_.data();
    scatter_->run(p);
  }
}

template class ReduceScatter<CCT_REDUCE_SCATTER_BLOCK>;
template class ReduceScatter<CCT_REDUCE_SCATTER>;

}  // namespace cct::plugins::multinode
