#include "device/bcast_binomial.hpp"

#include "common/rooted.hpp"

namespace cct::plugins::device {

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
