// Folding a communicator of any size onto a power of two, the usual way to run
// recursive halving and doubling on n ranks that are not a power of two.
//
// With p the largest power of two <= n and rem = n - p, the first 2 * rem
// (virtual) ranks pair up: the odd one of each pair hands its vector to the
// even one and sits out; the even ones and the ranks >= 2 * rem are the p
// participants, numbered 0..p-1 in rank order. Ranks are taken relative to a
// root (virtual rank = (rank - root) mod n), so the root is participant 0.
// Folding costs one extra full-vector step before (fold_in) and, when every
// rank needs the result, one after (fold_out).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include "cct/sdk/comm.hpp"
#include "cct/sdk/datatype.hpp"
#include "common/args.hpp"
#include "common/rooted.hpp"

namespace cct::plugins {

class Fold {
 public:
  Fold(int n, int rank, int root = 0)
      : n_(n),
        root_(root),
        vrank_(to_virtual(rank, root, n)),
        p_(static_cast<int>(std::bit_floor(static_cast<unsigned>(n)))),
        rem_(n - p_) {}

  int pof2() const { return p_; }
  // True for the ranks that are paired in the fold (both halves of a pair).
  bool paired() const { return vrank_ < 2 * rem_; }
  bool sits_out() const { return paired() && vrank_ % 2 == 1; }
  // The other rank of this rank's pair (only when paired()).
  int partner() const { return to_rank(vrank_ ^ 1); }
  // This rank's participant number, 0..p-1 (only when !sits_out()).
  int id() const { return paired() ? vrank_ / 2 : vrank_ - rem_; }
  // The communicator rank of participant `id`.
  int rank_of(int id) const { return to_rank(id < rem_ ? 2 * id : id + rem_); }

 private:
  int to_rank(int vrank) const { return to_real(vrank, root_, n_); }

  int n_, root_, vrank_, p_, rem_;
};

// The fold's first step. A rank that sits out sends its input to its partner
// and returns false. A participant copies its input into acc and, when paired,
// reduces its partner's vector into it (received into tmp, `count` elements).
inline bool fold_in(const sdk::Comm& comm, const Fold& fold, const std::byte* in, std::byte* acc,
                    std::byte* tmp, const cct_coll_args& a) {
  const std::size_t bytes = a.count * elem_size(a);
  if (fold.sits_out()) {
    comm.send(in, bytes, fold.partner(), a.tag);
    return false;
  }
  copy_bytes(acc, in, bytes);
  if (fold.paired()) {
    comm.recv(tmp, bytes, fold.partner(), a.tag);
    sdk::reduce_local(acc, tmp, a.count, a.dtype, a.op);
  }
  return true;
}

// The fold's last step: each paired participant sends its result (acc) to the
// rank that sat out, which receives it into acc.
inline void fold_out(const sdk::Comm& comm, const Fold& fold, std::byte* acc, std::size_t bytes,
                     uint32_t tag) {
  if (!fold.paired()) return;
  if (fold.sits_out())
    comm.recv(acc, bytes, fold.partner(), tag);
  else
    comm.send(acc, bytes, fold.partner(), tag);
}

}  // namespace cct::plugins
