#include "alltoallv/linear.hpp"

#include <algorithm>

#include "alltoallv/blocks.hpp"
#include "common/crossings.hpp"

namespace cct::plugins::alltoallv {

// Everything posted at once and waited for together: one latency, the n - 1
// blocks (count elements each) leaving this rank one after another. Every
// rank's blocks for the other half cross it once.
cct_cost Linear::cost(const sdk::Comm& comm, const cct_coll_args& a, std::span<const int64_t>) {
  const int peers = comm.size() - 1;
  const double block = a.count * elem_size(a);
  return sdk::flat_cost(comm, std::min(peers, 1), peers * block)
      .cross(direct_crossings(comm.size()) * block);
}

Linear::Linear(const sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm), requests_(2 * static_cast<std::size_t>(comm.size())) {}

// Receives are posted first, from the next rank on, and sends likewise, so
// that not every rank sends to rank 0 first.
void Linear::run(const cct_coll_args& a) {
  const int n = comm_.size(), rank = comm_.rank();
  const Blocks blocks(a, n, aside_);
  std::size_t posted = 0;
  for (int k = 1; k < n; ++k) {
    const int from = (rank - k + n) % n;
    comm_.irecv(blocks.from(from), blocks.from_bytes(from), from, a.tag, requests_[posted++]);
  }
  for (int k = 1; k < n; ++k) {
    const int to = (rank + k) % n;
    comm_.isend(blocks.to(to), blocks.to_bytes(to), to, a.tag, requests_[posted++]);
  }
  copy_bytes(blocks.from(rank), blocks.to(rank), blocks.to_bytes(rank));
  comm_.waitall(requests_.data(), posted);
}

}  // namespace cct::plugins::alltoallv
