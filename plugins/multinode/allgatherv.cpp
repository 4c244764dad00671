#include <cstring>

#include "allgatherv/bruck.hpp"
#include "allgatherv/ring.hpp"
#include "common/args.hpp"
#include "gatherv/linear.hpp"
#include "multinode/multinode.hpp"
#include "multinode/phases.hpp"

namespace cct::plugins::multinode {
namespace {

std::unique_ptr<Sub> make_outer(int64_t outer, const sdk::Comm& leaders) {
  if (outer == 0) return make_sub<allgatherv::Ring>(leaders);
  return make_sub<allgatherv::Bruck>(leaders);
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
  checked_level(comm, params);
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
