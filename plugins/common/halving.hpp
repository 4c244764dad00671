// Recursive-halving reduce-scatter over the participants of a Fold: the
// bandwidth-optimal first half of Rabenseifner's reduce and allreduce.
#pragma once

#include "cct/sdk/comm.hpp"
#include "cct/sdk/datatype.hpp"
#include "common/blocks.hpp"
#include "common/fold.hpp"

namespace cct::plugins {

// `blocks` splits the vector into fold.pof2() blocks. At step d = p/2, p/4,
// .., 1 each participant swaps half of its current window of 2d blocks with
// participant id ^ d and reduces the half it keeps (received into tmp, which
// holds the largest half the participant keeps). log2(p) steps move (p-1)/p of the
// vector in all; on return participant id holds the reduction of block id
// in acc.
template <class Layout>
void reduce_scatter_halving(const sdk::Comm& comm, const Fold& fold, const Layout& blocks,
                            std::byte* acc, std::byte* tmp, const cct_coll_args& a) {
  const int id = fold.id();
  int first = 0;
  for (int d = fold.pof2() / 2; d >= 1; d /= 2) {
    const bool upper = (id & d) != 0;
    const int keep = upper ? first + d : first;
    const int give = upper ? first : first + d;
    const int peer = fold.rank_of(id ^ d);
    comm.sendrecv(acc + blocks.offset(give), blocks.bytes(give, d), peer, tmp,
                  blocks.bytes(keep, d), peer, a.tag);
    sdk::reduce_local(acc + blocks.offset(keep), tmp, blocks.count(keep, d), a.dtype, a.op);
    first = keep;
  }
}

}  // namespace cct::plugins
