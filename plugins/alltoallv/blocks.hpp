// alltoallv's blocks as bytes: where rank r's outgoing and incoming blocks
// lie and how long they are. In place the input is in recvbuf, at the
// receive displacements (cct_coll_args: sendcounts and sdispls equal
// recvcounts and rdispls then), and is copied aside first, since the
// blocks received overwrite it.
#pragma once

#include <algorithm>
#include <cstddef>

#include "cct/abi/algorithm.h"
#include "common/args.hpp"
#include "common/scratch.hpp"

namespace cct::plugins::alltoallv {

class Blocks {
 public:
  Blocks(const cct_coll_args& a, int n, Scratch& aside) : a_(a), elem_(elem_size(a)) {
    in_ = static_cast<const std::byte*>(a.sendbuf);
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
