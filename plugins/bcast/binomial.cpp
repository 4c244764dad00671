#include "bcast/binomial.hpp"

#include "common/rooted.hpp"

namespace cct::plugins::bcast {

// ceil(log2 p) rounds, each a whole-buffer send: the last leaf waits for
// every round. The buffer crosses the halves on the tree's crossing edges
// (the bisection is counted with the root at rank 0, as the tuner times it).
cct_cost Binomial::cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                        std::span<const int64_t>) {
  const double rounds = binomial_depth(comm.size());
  const double bytes = rooted_bytes(args, comm.size());
  return cct::sdk::flat_cost(comm, rounds, rounds * bytes)
      .cross(binomial_crossings(comm.size()) * bytes);
}

Binomial::Binomial(const cct::sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm), sends_(binomial_depth(comm.size())) {}

void Binomial::run(const cct_coll_args& args) {
  const std::size_t bytes = rooted_bytes(args, comm_.size());
  if (bytes == 0) return;
  const int size = comm_.size();
  const int vrank = to_virtual(comm_.rank(), args.root, size);
  const int span = binomial_span(vrank, size);
  if (vrank != 0) comm_.recv(args.recvbuf, bytes, to_real(vrank - span, args.root, size), args.tag);
  // Largest subtree first: it has the most rounds still ahead of it.
  std::size_t posted = 0;
  for (int m = span / 2; m >= 1; m /= 2) {
    if (vrank + m < size)
      comm_.isend(args.recvbuf, bytes, to_real(vrank + m, args.root, size), args.tag,
                  sends_[posted++]);
  }
  comm_.waitall(sends_.data(), posted);
}

}  // namespace cct::plugins::bcast
