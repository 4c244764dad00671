#include "device/reduce_binomial.hpp"

#include "common/rooted.hpp"

namespace cct::plugins::device {

// The input copied into the accumulator, then ceil(log2 n) rounds up to
// the root, each a whole-vector message, staged, and its reduction. Across
// the halves: the vector on the tree's crossing edges (root at rank 0).
cct_cost ReduceBinomial::cost(const sdk::Comm& comm, const cct_coll_args& a,
                              std::span<const int64_t> params) {
  const StagingChunk chunk(params[0]);
  const std::size_t bytes = rooted_bytes(a, comm.size());
  if (bytes == 0 || comm.size() < 2) return {};
  const double rounds = binomial_depth(comm.size());
  return staged_cost(comm, rounds, bytes, chunk.bytes())
      .reduce(rounds * static_cast<double>(bytes))
      .copy(static_cast<double>(bytes))
      .cross(binomial_crossings(comm.size()) * static_cast<double>(bytes));
}

ReduceBinomial::ReduceBinomial(const sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm), chunk_(params[0]), device_(comm), acc_(device_), tmp_(device_) {}

void ReduceBinomial::run(const cct_coll_args& a) {
  chunk_.apply(comm_);
  const std::size_t bytes = rooted_bytes(a, comm_.size());
  if (bytes == 0) return;
  const int size = comm_.size();
  const int vrank = to_virtual(comm_.rank(), a.root, size);
  const int span = binomial_span(vrank, size);
  // The root reduces into recvbuf; the others into scratch.
  std::byte* acc = vrank == 0 ? output_of(a) : acc_.get(bytes);
  device_.copy(acc, input_of(a), bytes, CCT_COPY_DEVICE_TO_DEVICE);
  std::byte* tmp = tmp_.get(bytes);
  for (int m = 1; m < span && vrank + m < size; m *= 2) {
    device_.synchronize();  // tmp is free again
    comm_.recv(tmp, bytes, to_real(vrank + m, a.root, size), a.tag);
    device_.reduce(acc, tmp, a.count, a.dtype, a.op);
  }
  device_.synchronize();
  if (vrank != 0) comm_.send(acc, bytes, to_real(vrank - span, a.root, size), a.tag);
}

}  // namespace cct::plugins::device
