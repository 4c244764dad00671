#include "allgather/bruck.hpp"

#include <algorithm>

#include "common/args.hpp"
#include "common/crossings.hpp"

namespace cct::plugins::allgather {

// ceil(log2 n) steps of min(d, n - d) blocks, n - 1 in all, then the
// rotation copies the whole result (on every rank but 0). Each step's
// blocks cross the halves on the sends to rank - d that do.
cct_cost Bruck::cost(const sdk::Comm& comm, const cct_coll_args& a, std::span<const int64_t>) {
  const int n = comm.size();
  const double block = a.count * elem_size(a);
  return sdk::CostShape()
      .send(sdk::outer_span(comm), sdk::steps_to_reach(n, 2), (n - 1) * block)
      .copy(n * block)
      .cross(bruck_crossings(n) * block);
}

Bruck::Bruck(const sdk::Comm& comm, std::span<const int64_t>) : comm_(comm) {}

// work[i] collects the block of rank (rank + i) mod n. On rank 0 that is
// recvbuf's own order, so work is recvbuf; elsewhere it is scratch, rotated
// into recvbuf at the end.
void Bruck::run(const cct_coll_args& a) {
  if (a.count == 0) return;
  const int n = comm_.size(), rank = comm_.rank();
  const std::size_t block = a.count * elem_size(a);
  std::byte* out = output_of(a);
  std::byte* work = rank == 0 ? out : scratch_.get(n * block);
  copy_bytes(work, in_place(a) ? out + rank * block : input_of(a), block);
  for (int d = 1; d < n; d *= 2) {
    const std::size_t bytes = std::min(d, n - d) * block;
    comm_.sendrecv(work, bytes, (rank - d + n) % n, work + d * block, bytes, (rank + d) % n, a.tag);
  }
  copy_bytes(out + rank * block, work, (n - rank) * block);
  copy_bytes(out, work + (n - rank) * block, rank * block);
}

}  // namespace cct::plugins::allgather
