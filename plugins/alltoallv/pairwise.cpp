#include "alltoallv/pairwise.hpp"

#include <bit>

#include "alltoallv/blocks.hpp"

namespace cct::plugins::alltoallv {

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
