// alltoallv's blocks as bytes: where rank r's outgoing and incoming blocks
// lie and how long they are. In place the input is in recvbuf, at the
// receive displacements (cct_coll_args: sendcounts and sdispls equal
// recvcounts and rdispls then): read there, or copied aside first where
// the blocks received would overwrite blocks not yet sent.
#pragma once

#include <algorithm>
#include <cstddef>

#include "cct/abi/algorithm.h"
#include "common/args.hpp"
#include "common/scratch.hpp"

namespace cct::plugins::alltoallv {

class Blocks {
 public:
  // The outgoing blocks where the call has them (in place: in recvbuf).
  explicit Blocks(const cct_coll_args& a) : a_(a), elem_(elem_size(a)), in_(input_of(a)) {}
  // In place, the outgoing blocks copied aside to `aside` first.
  Blocks(const cct_coll_args& a, int n, Scratch& aside) : Blocks(a) {
    if (!in_place(a)) return;
    std::size_t end = 0;
    for (int r = 0; r < n; ++r) end = std::max(end, (a.rdispls[r] + a.recvcounts[r]) * elem_);
    std::byte* copy = aside.get(end);
    copy_bytes(copy, output_of(a), end);
    in_ = copy;
  }
  const std::byte* to(int r) const { return in_ + a_.sdispls[r] * elem_; }
  std::size_t to_bytes(int r) const { return a_.sendcounts[r] * elem_; }
  std::byte* from(int r) const { return output_of(a_) + a_.rdispls[r] * elem_; }
  std::size_t from_bytes(int r) const { return a_.recvcounts[r] * elem_; }

 private:
  const cct_coll_args& a_;
  std::size_t elem_;
  const std::byte* in_;
};

}  // namespace cct::plugins::alltoallv
