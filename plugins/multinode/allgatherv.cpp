#include <algorithm>
#include <cstring>

#include "allgatherv/bruck.hpp"
#include "allgatherv/ring.hpp"
#include "common/args.hpp"
#include "gatherv/linear.hpp"
#include "multinode/multinode.hpp"
#include "multinode/phases.hpp"

namespace cct::plugins::multinode {
namespace {

// f.template operator()<A>() with the class A that `outer` picks.
template <class F>
auto with_outer(int64_t outer, F f) {
  if (outer == 0) return f.template operator()<allgatherv::Ring>();
  return f.template operator()<allgatherv::Bruck>();
}

std::unique_ptr<Sub> make_outer(int64_t outer, const sdk::Comm& leaders) {
  return with_outer(outer, [&]<class A>() { return make_sub<A>(leaders); });
}

// Counts in elements laid out one after another: their displacements.
std::vector<std::size_t> packed_displs(const std::vector<std::size_t>& counts) {
  std::vector<std::size_t> displs(counts.size());
  std::size_t at = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    displs[i] = at;
    at += counts[i];
  }
  return displs;
}

int checked_level(const sdk::Comm& comm, std::span<const int64_t> params) {
  const int level = split_level(*comm.raw(), params[0]);
  check_choice("inner", params[1], Allgatherv::kInner.size());
  check_choice("outer", params[2], Allgatherv::kInner.size());
  return level;
}

}  // namespace

void Allgatherv::check(const sdk::Comm& comm, const cct_coll_args&,
                       std::span<const int64_t> params) {
  require_nodes(*comm.raw());
  checked_level(comm, params);
}

// The largest group's gatherv to its leader (a copy when alone), the
// leaders' allgatherv of the groups' pieces, the group's bcast of the
// packed whole, and the unpacking, one after another. Across the halves:
// the leaders' phase's crossings, and a group phase's in each group that
// spans both halves (cost_phases.hpp).
cct_cost Allgatherv::cost(const sdk::Comm& comm, const cct_coll_args& args,
                          std::span<const int64_t> params) {
  const int level = checked_level(comm, params);
  const sdk::Level split = comm.level(level);
  std::vector<std::size_t> pieces(static_cast<std::size_t>(split.groups()));
  for (int r = 0; r < comm.size(); ++r) pieces[split.group_of(r)] += args.recvcounts[r];
  const std::vector<std::size_t> piece_displs = packed_displs(pieces);
  const std::size_t total = piece_displs.back() + pieces.back();
  if (total == 0) return {};
  const GroupShape group(comm, level);
  const LeadersShape leaders(comm, level);
  std::vector<std::size_t> member_counts;
  for (int r : group.members()) member_counts.push_back(args.recvcounts[r]);
  const std::vector<std::size_t> member_displs = packed_displs(member_counts);
  cct_coll_args gatherv = phase(args, CCT_GATHERV, nullptr, nullptr, member_counts[0], 0);
  gatherv.recvcounts = member_counts.data();
  gatherv.rdispls = member_displs.data();
  // count: the pieces as the equal blocks a cost reads (cct_algorithm_desc.cost).
  cct_coll_args outer = phase(args, CCT_ALLGATHERV, CCT_IN_PLACE, nullptr,
                              *std::max_element(pieces.begin(), pieces.end()), 0);
  outer.recvcounts = pieces.data();
  outer.rdispls = piece_displs.data();
  const cct_coll_args bcast = phase(args, CCT_BCAST, nullptr, nullptr, total, 0);
  return sdk::CostShape()
      .then(phase_cost<gatherv::Linear>(group, gatherv))
      .copy(group.size() == 1 ? sdk::bytes_of(args, member_counts[0]) : 0)
      .then(with_outer(params[2], [&]<class A>() { return phase_cost<A>(leaders, outer); }))
      .then(with_bcast(params[1], [&]<class A>() { return phase_cost<A>(group, bcast); }))
      .copy(sdk::bytes_of(args, total));
}

// The group's gatherv and bcast are prepared in this order on every
// member, so their shared regions are allocated in the same order on all.
Allgatherv::Allgatherv(const sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm),
      split_(comm, checked_level(comm, params)),
      offsets_(static_cast<std::size_t>(comm.size())),
      pieces_(static_cast<std::size_t>(split_.groups())),
      piece_displs_(pieces_.size()),
      member_counts_(split_.members(split_.group_of(comm.rank())).size()),
      member_displs_(member_counts_.size()) {
  if (!split_.alone()) {
    const sdk::Comm group(split_.group().raw());
    gatherv_ = make_sub<gatherv::Linear>(group);
    bcast_ = make_bcast(params[1], group);
  }
  if (split_.leads()) {
    leaders_ = std::make_unique<sdk::LeadersComm>(*comm.raw(), split_.level());
    outer_ = make_outer(params[2], sdk::Comm(leaders_->raw()));
  }
}

// Packed order: group g's blocks, in the order of its members, form piece
// g, pieces in group order. Counts the pieces, each rank's place in them,
// and this group's blocks within its piece.
void Allgatherv::count_pieces(const cct_coll_args& args) {
  std::size_t at = 0;
  for (int g = 0; g < split_.groups(); ++g) {
    piece_displs_[g] = at;
    for (int r : split_.members(g)) {
      offsets_[r] = at;
      at += args.recvcounts[r];
    }
    pieces_[g] = at - piece_displs_[g];
  }
  const auto& mine = split_.members(split_.group_of(comm_.rank()));
  for (std::size_t j = 0; j < mine.size(); ++j) {
    member_counts_[j] = args.recvcounts[mine[j]];
    member_displs_[j] = offsets_[mine[j]] - offsets_[mine[0]];
  }
}

// Every block to its own displacement, and nothing between them.
void Allgatherv::unpack(const cct_coll_args& args, const std::byte* packed) const {
  const std::size_t elem = elem_size(args);
  for (int r = 0; r < comm_.size(); ++r)
    copy_bytes(output_of(args) + args.rdispls[r] * elem, packed + offsets_[r] * elem,
               args.recvcounts[r] * elem);
}

// In place, a rank's own block is read from its displacement in recvbuf.
void Allgatherv::run(const cct_coll_args& args) {
  count_pieces(args);
  const std::size_t total = piece_displs_.back() + pieces_.back();
  if (total == 0) return;
  const std::size_t elem = elem_size(args);
  const int me = comm_.rank();
  const std::byte* mine =
      in_place(args) ? output_of(args) + args.rdispls[me] * elem : input_of(args);
  std::byte* packed = packed_.get(total * elem);
  std::byte* piece = packed + offsets_[split_.members(split_.group_of(me))[0]] * elem;
  if (gatherv_) {
    cct_coll_args p = phase(args, CCT_GATHERV, mine, piece, args.recvcounts[me], 0);
    p.recvcounts = member_counts_.data();
    p.rdispls = member_displs_.data();
    gatherv_->run(p);
  } else {
    copy_bytes(piece, mine, args.recvcounts[me] * elem);
  }
  if (outer_) {
    cct_coll_args p = phase(args, CCT_ALLGATHERV, CCT_IN_PLACE, packed, 0, 0);
    p.recvcounts = pieces_.data();
    p.rdispls = piece_displs_.data();
    outer_->run(p);
  }
  if (bcast_) bcast_->run(phase(args, CCT_BCAST, nullptr, packed, total, 0));
  unpack(args, packed);
}

}  // namespace cct::plugins::multinode
