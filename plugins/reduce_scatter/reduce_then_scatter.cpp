#include "reduce_scatter/reduce_then_scatter.hpp"

#include "common/args.hpp"
#include "common/rooted.hpp"

namespace cct::plugins::reduce_scatter {

// ceil(log2 p) tree rounds that receive and combine the whole vector at
// rank 0, then its p - 1 block sends, posted together: one latency, their
// bytes one after another. Across the halves: the vector on the tree's
// crossing edges, then the upper half's blocks.
template <cct_collective C>
cct_cost ReduceThenScatter<C>::cost(const sdk::Comm& comm, const cct_coll_args& args,
                                    std::span<const int64_t>) {
  const int n = comm.size();
  const double total = static_cast<double>(RankBlocks().of(args, n).total_bytes());
  const double rounds = binomial_depth(n);
  return sdk::flat_cost(comm, rounds + 1, rounds * total + total * (n - 1) / n, rounds * total)
      .cross(binomial_crossings(n) * total + cct::sdk::upper_half(n) * total / n);
}

template <cct_collective C>
ReduceThenScatter<C>::ReduceThenScatter(const sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm), sends_(static_cast<std::size_t>(comm.size())) {}

template <cct_collective C>
void ReduceThenScatter<C>::run(const cct_coll_args& a) {
  const CountedBlocks& blocks = ranks_.of(a, comm_.size());
  scatter(a, blocks, reduce(a, blocks.total_bytes()));
}

// The binomial tree rooted at rank 0: a rank receives from rank + mask for
// each mask below its lowest set bit, reducing each child's partial sum
// into its own, then sends it to rank - (lowest set bit). Returns the sum
// on rank 0, nullptr elsewhere.
template <cct_collective C>
const std::byte* ReduceThenScatter<C>::reduce(const cct_coll_args& a, std::size_t bytes) {
  const int n = comm_.size(), me = comm_.rank();
  const std::byte* sum = input_of(a);
  for (int mask = 1; mask < n; mask <<= 1) {
    if (me & mask) {
      comm_.send(sum, bytes, me - mask, a.tag);
      return nullptr;
    }
    if (me + mask >= n) continue;
    std::byte* acc = scratch_.get(2 * bytes);
    std::byte* child = acc + bytes;
    copy_bytes(acc, sum, bytes);
    comm_.recv(child, bytes, me + mask, a.tag);
    sdk::reduce_local(acc, child, bytes / elem_size(a), a.dtype, a.op);
    sum = acc;
  }
  return sum;
}

// Rank 0 sends each other rank its block of the sum and keeps its own; the
// others receive theirs straight into recvbuf.
template <cct_collective C>
void ReduceThenScatter<C>::scatter(const cct_coll_args& a, const CountedBlocks& blocks,
                                   const std::byte* sum) {
  const int n = comm_.size(), me = comm_.rank();
  if (me != 0) {
    comm_.recv(output_of(a), blocks.bytes(me), 0, a.tag);
    return;
  }
  for (int r = 1; r < n; ++r)
    comm_.isend(sum + blocks.offset(r), blocks.bytes(r), r, a.tag, sends_[r - 1]);
  copy_bytes(output_of(a), sum, blocks.bytes(0));
  comm_.waitall(sends_.data(), static_cast<std::size_t>(n - 1));
}

template class ReduceThenScatter<CCT_REDUCE_SCATTER_BLOCK>;
template class ReduceThenScatter<CCT_REDUCE_SCATTER>;

}  // namespace cct::plugins::reduce_scatter
