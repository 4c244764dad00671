#include "alltoall/pairwise.hpp"

#include <bit>

#include "alltoall/outgoing.hpp"
#include "common/args.hpp"
#include "common/crossings.hpp"

namespace cct::plugins::alltoall {

// n - 1 exchanges of one block each, one at a time. Every rank's blocks
// for the other half cross it once.
cct_cost Pairwise::cost(const sdk::Comm& comm, const cct_coll_args& a, std::span<const int64_t>) {
  const double steps = comm.size() - 1;
  const double block = a.count * elem_size(a);
  return sdk::flat_cost(comm, steps, steps * block).cross(direct_crossings(comm.size()) * block);
}

Pairwise::Pairwise(const sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm), pow2_(std::has_single_bit(static_cast<unsigned>(comm.size()))) {}

void Pairwise::run(const cct_coll_args& a) {
  if (a.count == 0) return;
  const int n = comm_.size(), rank = comm_.rank();
  const std::size_t block = a.count * elem_size(a);
  const std::byte* in = outgoing_blocks(a, scratch_, n * block);
  std::byte* out = output_of(a);
  copy_bytes(out + rank * block, in + rank * block, block);
  for (int k = 1; k < n; ++k) {
    const int to = pow2_ ? rank ^ k : (rank + k) % n;
    const int from = pow2_ ? rank ^ k : (rank - k + n) % n;
    comm_.sendrecv(in + to * block, block, to, out + from * block, block, from, a.tag);
  }
}

}  // namespace cct::plugins::alltoall
