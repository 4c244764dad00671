// Recursive-doubling allgather of blocks over the participants of a Fold:
// the second half of Rabenseifner's allreduce and the allgather of the same
// name.
#pragma once

#include <cstdint>

#include "cct/sdk/comm.hpp"
#include "common/blocks.hpp"
#include "common/fold.hpp"

namespace cct::plugins {

// `blocks` splits acc into fold.pof2() blocks and participant id starts with
// block id. At step d = 1, 2, .., p/2 it swaps its window of d blocks with
// participant id ^ d, doubling the window: log2(p) steps, after which every
// participant holds all blocks.
inline void allgather_doubling(const sdk::Comm& comm, const Fold& fold, const Blocks& blocks,
                               std::byte* acc, uint32_t tag) {
  const int id = fold.id();
  for (int d = 1; d < fold.pof2(); d *= 2) {
    const int mine = id & ~(d - 1);
    const int theirs = mine ^ d;
    const int peer = fold.rank_of(id ^ d);
    comm.sendrecv(acc + blocks.offset(mine), blocks.bytes(mine, d), peer,
                  acc + blocks.offset(theirs), blocks.bytes(theirs, d), peer, tag);
  }
}

}  // namespace cct::plugins
