#include "device/bcast_binomial.hpp"

#include "common/rooted.hpp"

namespace cct::plugins::device {

// ceil(log2 n) rounds, each a whole-buffer message, staged: the last leaf
// waits for every round. Across the halves: the buffer on the tree's
// crossing edges (root at rank 0).
cct_cost BcastBinomial::cost(const sdk::Comm& comm, const cct_coll_args& a,
                             std::span<const int64_t> params) {
  const StagingChunk chunk(params[0]);
  const std::size_t bytes = rooted_bytes(a, comm.size());
  if (bytes == 0) return {};
  return staged_cost(comm, binomial_depth(comm.size()), bytes, chunk.bytes())
      .cross(binomial_crossings(comm.size()) * static_cast<double>(bytes));
}

BcastBinomial::BcastBinomial(const sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm), chunk_(params[0]), sends_(binomial_depth(comm.size())) {}

void BcastBinomial::run(const cct_coll_args& a) {
  chunk_.apply(comm_);
  const std::size_t bytes = rooted_bytes(a, comm_.size());
  if (bytes == 0) return;
  const int size = comm_.size();
  const int vrank = to_virtual(comm_.rank(), a.root, size);
  const int span = binomial_span(vrank, size);
  if (vrank != 0) comm_.recv(a.recvbuf, bytes, to_real(vrank - span, a.root, size), a.tag);
  std::size_t posted = 0;
  for (int m = span / 2; m >= 1; m /= 2)
    if (vrank + m < size)
      comm_.isend(a.recvbuf, bytes, to_real(vrank + m, a.root, size), a.tag, sends_[posted++]);
  comm_.waitall(sends_.data(), posted);
}

}  // namespace cct::plugins::device
