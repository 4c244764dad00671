#include "allgatherv/bruck.hpp"

#include <algorithm>

#include "common/args.hpp"
#include "common/crossings.hpp"

namespace cct::plugins::allgatherv {

// Every block is copied out of the scratch (equal blocks of count elements).
cct_cost Bruck::cost(const sdk::Comm& comm, const cct_coll_args& a, std::span<const int64_t>) {
  return bruck_allgather_cost(comm, static_cast<double>(a.count * elem_size(a)));
}

Bruck::Bruck(const sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm), offsets_(static_cast<std::size_t>(comm.size()) + 1) {}

// Scratch position i holds the block of rank (rank + i) mod n.
int Bruck::rank_at(int i) const {
  return (comm_.rank() + i) % comm_.size();
}

void Bruck::place(const cct_coll_args& a) {
  const std::size_t elem = elem_size(a);
  for (int i = 0; i < comm_.size(); ++i)
    offsets_[i + 1] = offsets_[i] + a.recvcounts[rank_at(i)] * elem;
}

// The blocks this rank holds at step d are those of ranks rank..rank+d-1,
// so what it sends rank - d is exactly what that rank lacks next, and what
// rank + d sends it lands at position d, right after them.
void Bruck::run(const cct_coll_args& a) {
  place(a);
  if (offsets_.back() == 0) return;
  const int n = comm_.size(), me = comm_.rank();
  const std::size_t elem = elem_size(a);
  std::byte* out = output_of(a);
  const auto at = [&](int r) { return out + a.rdispls[r] * elem; };
  const std::byte* mine = in_place(a) ? at(me) : input_of(a);
  std::byte* work = scratch_.get(offsets_.back());
  copy_bytes(work, mine, offsets_[1]);
  for (int d = 1; d < n; d *= 2) {
    const int k = std::min(d, n - d);
    comm_.sendrecv(work, offsets_[k], (me - d + n) % n, work + offsets_[d],
                   offsets_[d + k] - offsets_[d], (me + d) % n, a.tag);
  }
  copy_bytes(at(me), mine, offsets_[1]);
  for (int i = 1; i < n; ++i)
    copy_bytes(at(rank_at(i)), work + offsets_[i], offsets_[i + 1] - offsets_[i]);
}

}  // namespace cct::plugins::allgatherv
