#include "reduce_scatter/ring.hpp"

#include <algorithm>

#include "common/args.hpp"
#include "common/crossings.hpp"

namespace cct::plugins::reduce_scatter {

// p - 1 steps in a row, each sending one block and combining the one that
// came in. Each step's block crosses the halves at two links.
template <cct_collective C>
cct_cost Ring<C>::cost(const sdk::Comm& comm, const cct_coll_args& args, std::span<const int64_t>) {
  const int n = comm.size();
  const double total = static_cast<double>(RankBlocks().of(args, n).total_bytes());
  const double moved = total * (n - 1) / n;
  return sdk::flat_cost(comm, n - 1, moved, moved).cross(ring_crossings(n) * total / n);
}

template <cct_collective C>
Ring<C>::Ring(const sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm),
      left_((comm.rank() - 1 + comm.size()) % comm.size()),
      right_((comm.rank() + 1) % comm.size()) {}

// The block `shift` places after this rank's own, around the ring.
template <cct_collective C>
int Ring<C>::block(int shift) const {
  const int n = comm_.size();
  return ((comm_.rank() + shift) % n + n) % n;
}

// Step s sends block rank - s - 1 (the input's at s = 0, then the one
// reduced in the step before) and reduces block rank - s - 2 from the
// input and what came from the left; the last step's is this rank's own,
// reduced straight into recvbuf (in place, where the input still lies,
// through acc).
template <cct_collective C>
void Ring<C>::run(const cct_coll_args& a) {
  const CountedBlocks& blocks = ranks_.of(a, comm_.size());
  const std::byte* input = input_of(a);
  const int n = comm_.size(), me = comm_.rank();
  std::size_t largest = 0;
  for (int b = 0; b < n; ++b) largest = std::max(largest, blocks.bytes(b));
  std::byte* acc = acc_.get(largest);
  std::byte* tmp = tmp_.get(largest);
  const std::byte* out = input + blocks.offset(block(-1));
  for (int s = 0; s < n - 1; ++s) {
    const int sent = block(-s - 1), in = block(-s - 2);
    comm_.sendrecv(out, blocks.bytes(sent), right_, tmp, blocks.bytes(in), left_, a.tag);
    std::byte* into = in == me && !in_place(a) ? output_of(a) : acc;
    sdk::reduce_into(into, input + blocks.offset(in), tmp, blocks.count(in), a.dtype, a.op);
    out = acc;
  }
  if (n == 1)
    copy_bytes(output_of(a), input, blocks.bytes(me));
  else if (in_place(a))
    copy_bytes(output_of(a), acc, blocks.bytes(me));
}

template class Ring<CCT_REDUCE_SCATTER_BLOCK>;
template class Ring<CCT_REDUCE_SCATTER>;

}  // namespace cct::plugins::reduce_scatter
