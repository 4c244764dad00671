#include "allgather/bruck.hpp"

#include <algorithm>

#include "common/args.hpp"
#include "common/crossings.hpp"

namespace cct::plugins::allgather {

// The rotation copies the whole result (on every rank but 0).
cct_cost Bruck::cost(const sdk::Comm& comm, const cct_coll_args& a, std::span<const int64_t>) {
  return bruck_allgather_cost(comm, static_cast<double>(a.count * elem_size(a)));
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
