#include "allgatherv/ring.hpp"

#include "common/args.hpp"
#include "common/crossings.hpp"

namespace cct::plugins::allgatherv {

// n - 1 neighbour steps of one block each (the tuner's equal blocks of
// count elements), every step waiting for the one before it. Each step's
// block crosses the halves at two places.
cct_cost Ring::cost(const sdk::Comm& comm, const cct_coll_args& a, std::span<const int64_t>) {
  const double steps = comm.size() - 1;
  const double block = a.count * elem_size(a);
  return sdk::flat_cost(comm, steps, steps * block).cross(ring_crossings(comm.size()) * block);
}

Ring::Ring(const sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm),
      left_((comm.rank() - 1 + comm.size()) % comm.size()),
      right_((comm.rank() + 1) % comm.size()) {}

int Ring::block(int shift) const {
  const int n = comm_.size();
  return ((comm_.rank() + shift) % n + n) % n;
}

// Step s passes block rank - s on and receives block rank - s - 1.
void Ring::run(const cct_coll_args& a) {
  const std::size_t elem = elem_size(a);
  std::byte* recv = output_of(a);
  const auto at = [&](int r) { return recv + a.rdispls[r] * elem; };
  const auto bytes = [&](int r) { return a.recvcounts[r] * elem; };
  const int me = comm_.rank();
  if (!in_place(a)) copy_bytes(at(me), static_cast<const std::byte*>(a.sendbuf), bytes(me));
  for (int s = 0; s < comm_.size() - 1; ++s) {
    const int out = block(-s), in = block(-s - 1);
    comm_.sendrecv(at(out), bytes(out), right_, at(in), bytes(in), left_, a.tag);
  }
}

}  // namespace cct::plugins::allgatherv
