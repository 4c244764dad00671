#include "allgather/ring.hpp"

#include "common/args.hpp"
#include "common/crossings.hpp"

namespace cct::plugins::allgather {

// n - 1 neighbour steps of one block each, every step waiting for the one
// before it. Each step's block crosses the halves at two places.
cct_cost Ring::cost(const sdk::Comm& comm, const cct_coll_args& a, std::span<const int64_t>) {
  const double steps = comm.size() - 1;
  const double block = a.count * elem_size(a);
  return sdk::flat_cost(comm, steps, steps * block).cross(ring_crossings(comm.size()) * block);
}

Ring::Ring(const sdk::Comm& comm, std::span<const int64_t>) : comm_(comm) {}

// Step s sends block rank - s to the right and receives block rank - s - 1
// from the left, straight into recvbuf.
void Ring::run(const cct_coll_args& a) {
  if (a.count == 0) return;
  const int n = comm_.size(), rank = comm_.rank();
  const std::size_t block = a.count * elem_size(a);
  std::byte* out = output_of(a);
  if (!in_place(a)) copy_bytes(out + rank * block, input_of(a), block);
  for (int s = 0; s < n - 1; ++s) {
    const int send = (rank - s + n) % n, recv = (rank - s - 1 + n) % n;
    comm_.sendrecv(out + send * block, block, (rank + 1) % n, out + recv * block, block,
                   (rank - 1 + n) % n, a.tag);
  }
}

}  // namespace cct::plugins::allgather
