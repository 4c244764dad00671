#include "bcast/scatter_allgather.hpp"

#include <algorithm>

#include "common/rooted.hpp"

namespace cct::plugins::bcast {

// The scatter: ceil(log2 p) rounds that halve what is sent, about n (p -
// 1) / p bytes in all on the deepest path; the ring: p - 1 steps of one
// piece each. Across the halves: the upper half's pieces once in the
// scatter, then two pieces a ring step.
cct_cost ScatterAllgather::cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                                std::span<const int64_t>) {
  const int size = comm.size();
  const double spread = static_cast<double>(rooted_bytes(args, size)) * (size - 1) / size;
  const double piece = static_cast<double>(rooted_bytes(args, size)) / size;
  return cct::sdk::flat_cost(comm, binomial_depth(size) + size - 1.0, 2 * spread)
      .cross(piece * cct::sdk::upper_half(size) +
             piece * cct::sdk::shift_crossing(size, 1) * (size - 1));
}

ScatterAllgather::ScatterAllgather(const cct::sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm), requests_(std::max(binomial_depth(comm.size()), 2)) {}

void ScatterAllgather::run(const cct_coll_args& args) {
  if (rooted_bytes(args, comm_.size()) == 0) return;
  const int size = comm_.size();
  const Blocks pieces(args.count, size, elem_size(args));
  const int vrank = to_virtual(comm_.rank(), args.root, size);
  auto* buf = static_cast<std::byte*>(args.recvbuf);
  scatter(buf, pieces, vrank, args);
  allgather(buf, pieces, vrank, args);
}

// Each rank receives the pieces of its whole subtree from its parent and
// passes each child the pieces of the child's subtree.
void ScatterAllgather::scatter(std::byte* buf, const Blocks& pieces, int vrank,
                               const cct_coll_args& args) {
  const int size = comm_.size();
  const int span = binomial_span(vrank, size);
  if (vrank != 0) {
    const std::size_t length = pieces.bytes(vrank, std::min(span, size - vrank));
    if (length > 0)
      comm_.recv(buf + pieces.offset(vrank), length, to_real(vrank - span, args.root, size),
                 args.tag);
  }
  std::size_t posted = 0;
  for (int m = span / 2; m >= 1; m /= 2) {
    const int child = vrank + m;
    if (child >= size) continue;
    const std::size_t length = pieces.bytes(child, std::min(m, size - child));
    if (length > 0)
      comm_.isend(buf + pieces.offset(child), length, to_real(child, args.root, size), args.tag,
                  requests_[posted++]);
  }
  comm_.waitall(requests_.data(), posted);
}

// In step s rank v passes piece v - s to its right and gets piece v - s - 1
// from its left: after p - 1 steps every piece went round the ring.
void ScatterAllgather::allgather(std::byte* buf, const Blocks& pieces, int vrank,
                                 const cct_coll_args& args) {
  const int size = comm_.size();
  const int left = to_real((vrank - 1 + size) % size, args.root, size);
  const int right = to_real((vrank + 1) % size, args.root, size);
  for (int step = 0; step + 1 < size; ++step) {
    const int out = (vrank - step + size) % size;
    const int in = (out - 1 + size) % size;
    std::size_t posted = 0;
    if (pieces.bytes(in) > 0)
      comm_.irecv(buf + pieces.offset(in), pieces.bytes(in), left, args.tag, requests_[posted++]);
    if (pieces.bytes(out) > 0)
      comm_.isend(buf + pieces.offset(out), pieces.bytes(out), right, args.tag,
                  requests_[posted++]);
    comm_.waitall(requests_.data(), posted);
  }
}

}  // namespace cct::plugins::bcast
