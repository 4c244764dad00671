#include "alltoallv/pairwise.hpp"

#include <bit>

#include "alltoallv/blocks.hpp"
#include "common/crossings.hpp"

namespace cct::plugins::alltoallv {

// n - 1 exchanges, one at a time, of one block each (the tuner's equal
// blocks of count elements). Every rank's blocks for the other half cross
// it once.
cct_cost Pairwise::cost(const sdk::Comm& comm, const cct_coll_args& a, std::span<const int64_t>) {
  const double steps = comm.size() - 1;
  const double block = a.count * elem_size(a);
  return sdk::flat_cost(comm, steps, steps * block).cross(direct_crossings(comm.size()) * block);
}

Pairwise::Pairwise(const sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm), pow2_(std::has_single_bit(static_cast<unsigned>(comm.size()))) {}

void Pairwise::run(const cct_coll_args& a) {
  const int n = comm_.size(), rank = comm_.rank();
  const Blocks blocks(a, n, aside_);
  copy_bytes(blocks.from(rank), blocks.to(rank), blocks.to_bytes(rank));
  for (int k = 1; k < n; ++k) {
    const int to = pow2_ ? rank ^ k : (rank + k) % n;
    const int from = pow2_ ? rank ^ k : (rank - k + n) % n;
    comm_.sendrecv(blocks.to(to), blocks.to_bytes(to), to, blocks.from(from),
                   blocks.from_bytes(from), from, a.tag);
  }
}

}  // namespace cct::plugins::alltoallv
