#include "reduce_scatter/recursive_halving.hpp"

#include "common/args.hpp"
#include "common/crossings.hpp"
#include "common/halving.hpp"

namespace cct::plugins::reduce_scatter {

// Unless p is a power of two, the fold's whole vector first and the block
// back to the rank that sat out last; between them log2(p') halving steps
// that send and combine (p'-1)/p' of the vector (p': the fold's power of 2).
// Across the halves: the fold's crossing vectors and blocks back, and the
// halving's crossing windows (blocks of 1/p' on average).
template <cct_collective C>
cct_cost RecursiveHalving<C>::cost(const sdk::Comm& comm, const cct_coll_args& args,
                                   std::span<const int64_t>) {
  const int n = comm.size();
  const double total = static_cast<double>(RankBlocks().of(args, n).total_bytes());
  const Fold fold(n, 0);
  const double folded = fold.pof2() < n ? 1 : 0;
  const double spread = total * (fold.pof2() - 1) / fold.pof2();
  return sdk::flat_cost(comm, 2 * folded + binomial_depth(fold.pof2()),
                        folded * (total + total / n) + spread, folded * total + spread)
      .cross(fold_pair_crossing(n) * (total + total / n) +
             doubling_crossings(n) * total / fold.pof2());
}

template <cct_collective C>
RecursiveHalving<C>::RecursiveHalving(const sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm), fold_(comm.size(), comm.rank()) {}

// Participant id stands for rank rank_of(id), and for the next rank too
// when it is paired: its block is theirs, which lie together.
template <cct_collective C>
const CountedBlocks& RecursiveHalving<C>::participant_blocks(const CountedBlocks& ranks,
                                                             std::size_t elem) {
  const int p = fold_.pof2(), n = comm_.size();
  participant_counts_.resize(static_cast<std::size_t>(p));
  for (int id = 0; id < p; ++id) {
    const int first = fold_.rank_of(id);
    const int last = id + 1 < p ? fold_.rank_of(id + 1) : n;
    participant_counts_[id] = ranks.count(first, last - first);
  }
  participants_.assign(participant_counts_.data(), p, elem);
  return participants_;
}

template <cct_collective C>
void RecursiveHalving<C>::run(const cct_coll_args& a) {
  const CountedBlocks& ranks = ranks_.of(a, comm_.size());
  const std::size_t total = ranks.total_bytes();
  const int me = comm_.rank();
  if (fold_.sits_out()) {  // hands its vector over, gets its block back
    comm_.send(input_of(a), total, fold_.partner(), a.tag);
    comm_.recv(output_of(a), ranks.bytes(me), fold_.partner(), a.tag);
    return;
  }
  std::byte* acc = acc_.get(total);
  std::byte* tmp = tmp_.get(total);
  copy_bytes(acc, input_of(a), total);
  if (fold_.paired()) {
    comm_.recv(tmp, total, fold_.partner(), a.tag);
    sdk::reduce_local(acc, tmp, total / elem_size(a), a.dtype, a.op);
  }
  reduce_scatter_halving(comm_, fold_, participant_blocks(ranks, elem_size(a)), acc, tmp, a);
  if (fold_.paired())
    comm_.send(acc + ranks.offset(fold_.partner()), ranks.bytes(fold_.partner()), fold_.partner(),
               a.tag);
  copy_bytes(output_of(a), acc + ranks.offset(me), ranks.bytes(me));
}

template class RecursiveHalving<CCT_REDUCE_SCATTER_BLOCK>;
template class RecursiveHalving<CCT_REDUCE_SCATTER>;

}  // namespace cct::plugins::reduce_scatter
