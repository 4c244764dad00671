#include "reduce_scatter/pairwise.hpp"

#include "common/args.hpp"
#include "common/crossings.hpp"

namespace cct::plugins::reduce_scatter {

// p - 1 exchanges in a row (each sendrecv waits for the last), each sending
// one block and combining the one that came in. Every rank's block for each
// rank of the other half crosses the halves, as in an alltoall.
template <cct_collective C>
cct_cost Pairwise<C>::cost(const sdk::Comm& comm, const cct_coll_args& args,
                           std::span<const int64_t>) {
  const int n = comm.size();
  const double total = static_cast<double>(RankBlocks().of(args, n).total_bytes());
  const double moved = total * (n - 1) / n;
  return sdk::flat_cost(comm, n - 1, moved, moved).cross(direct_crossings(n) * total / n);
}

template <cct_collective C>
Pairwise<C>::Pairwise(const sdk::Comm& comm, std::span<const int64_t>) : comm_(comm) {}

// The result accumulates in recvbuf, starting from this rank's own input
// block; in place it accumulates in acc instead, since recvbuf still holds
// the blocks that later steps send.
template <cct_collective C>
void Pairwise<C>::run(const cct_coll_args& a) {
  const int n = comm_.size(), me = comm_.rank();
  const CountedBlocks& blocks = ranks_.of(a, n);
  const std::byte* input = input_of(a);
  const std::byte* own = input + blocks.offset(me);
  std::byte* acc = in_place(a) ? acc_.get(blocks.bytes(me)) : output_of(a);
  std::byte* tmp = tmp_.get(blocks.bytes(me));
  for (int s = 1; s < n; ++s) {
    const int to = (me + s) % n, from = (me - s + n) % n;
    comm_.sendrecv(input + blocks.offset(to), blocks.bytes(to), to, tmp, blocks.bytes(me), from,
                   a.tag);
    sdk::reduce_into(acc, s == 1 ? own : acc, tmp, blocks.count(me), a.dtype, a.op);
  }
  copy_bytes(output_of(a), n == 1 ? own : acc, blocks.bytes(me));
}

template class Pairwise<CCT_REDUCE_SCATTER_BLOCK>;
template class Pairwise<CCT_REDUCE_SCATTER>;

}  // namespace cct::plugins::reduce_scatter
