// Where an alltoall sends its blocks from.
#pragma once

#include <cstddef>

#include "common/args.hpp"
#include "common/scratch.hpp"

namespace cct::plugins::alltoall {

// The blocks to send (`bytes` in all): sendbuf, or in the in-place form a
// copy of recvbuf in scratch, since receives overwrite recvbuf blocks that
// may not have been sent yet. The copy moves the same bytes as staging each
// block before its send would.
inline const std::byte* outgoing_blocks(const cct_coll_args& a, Scratch& scratch,
                                        std::size_t bytes) {
  if (!in_place(a)) return input_of(a);
  std::byte* copy = scratch.get(bytes);
  copy_bytes(copy, input_of(a), bytes);
  return copy;
}

}  // namespace cct::plugins::alltoall
