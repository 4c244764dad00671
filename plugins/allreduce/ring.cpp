#include "allreduce/ring.hpp"

#include "common/args.hpp"
#include "common/crossings.hpp"

namespace cct::plugins::allreduce {

// n - 1 reduce-scatter steps, each sending and reducing one block of
// bytes / n, then n - 1 allgather steps of one block each. Each step's
// block crosses the halves at two places, in both rings.
cct_cost Ring::cost(const sdk::Comm& comm, const cct_coll_args& a, std::span<const int64_t>) {
  const int n = comm.size();
  const double block = static_cast<double>(a.count * elem_size(a)) / n;
  const double spread = block * (n - 1);
  return sdk::flat_cost(comm, 2.0 * (n - 1), 2 * spread, spread)
      .cross(2 * ring_crossings(n) * block);
}

Ring::Ring(const sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm),
      left_((comm.rank() - 1 + comm.size()) % comm.size()),
      right_((comm.rank() + 1) % comm.size()) {}

void Ring::run(const cct_coll_args& a) {
  if (a.count == 0) return;
  const std::size_t elem = elem_size(a);
  const Blocks blocks(a.count, comm_.size(), elem);
  std::byte* acc = output_of(a);
  copy_bytes(acc, input_of(a), a.count * elem);
  reduce_scatter(blocks, acc, scratch_.get(blocks.bytes(0)), a);
  allgather(blocks, acc, a.tag);
}

// The block `shift` places after this rank's own, around the ring.
int Ring::block(int shift) const {
  const int n = comm_.size();
  return ((comm_.rank() + shift) % n + n) % n;
}

// Step s sends block rank - s (partially reduced) to the right and reduces
// block rank - s - 1 from the left; after n - 1 steps this rank holds the
// full reduction of block rank + 1.
void Ring::reduce_scatter(const Blocks& blocks, std::byte* acc, std::byte* tmp,
                          const cct_coll_args& a) {
  for (int s = 0; s < comm_.size() - 1; ++s) {
    const int out = block(-s), in = block(-s - 1);
    comm_.sendrecv(acc + blocks.offset(out), blocks.bytes(out), right_, tmp, blocks.bytes(in),
                   left_, a.tag);
    sdk::reduce_local(acc + blocks.offset(in), tmp, blocks.count(in), a.dtype, a.op);
  }
}

// Step s passes the finished block rank + 1 - s to the right and receives
// block rank - s, in place, from the left.
void Ring::allgather(const Blocks& blocks, std::byte* acc, uint32_t tag) {
  for (int s = 0; s < comm_.size() - 1; ++s) {
    const int out = block(1 - s), in = block(-s);
    comm_.sendrecv(acc + blocks.offset(out), blocks.bytes(out), right_, acc + blocks.offset(in),
                   blocks.bytes(in), left_, tag);
  }
}

}  // namespace cct::plugins::allreduce
