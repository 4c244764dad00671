#include "allreduce/rabenseifner.hpp"

#include "common/args.hpp"
#include "common/blocks.hpp"
#include "common/crossings.hpp"
#include "common/doubling.hpp"
#include "common/fold.hpp"
#include "common/halving.hpp"

namespace cct::plugins::allreduce {

// On the p = 2^floor(log2 n) participants, log2(p) halving steps send and
// reduce (p - 1) / p of the vector in all, and log2(p) doubling steps send
// as much; off powers of two the fold adds a whole-vector step in (reduced)
// and one out. Across the halves: the windows of the halving and doubling
// exchanges that cross (on a power of two, half the vector at every rank
// in the first halving and the last doubling step), and the whole vector
// on the fold messages that cross.
cct_cost Rabenseifner::cost(const sdk::Comm& comm, const cct_coll_args& a,
                            std::span<const int64_t>) {
  const int n = comm.size();
  const Fold fold(n, 0);
  const int p = fold.pof2();
  const double folds = p < n ? 1 : 0;
  const double bytes = a.count * elem_size(a);
  const double spread = bytes * (p - 1) / p;
  return sdk::flat_cost(comm, 2 * (sdk::steps_to_reach(p, 2) + folds), 2 * (spread + folds * bytes),
                        spread + folds * bytes)
      .cross(2 * (doubling_crossings(n) * bytes / p + fold_pair_crossing(n) * bytes));
}

Rabenseifner::Rabenseifner(const sdk::Comm& comm, std::span<const int64_t>) : comm_(comm) {}

// acc is recvbuf on every rank; tmp takes one whole vector (the fold's
// message; the halving needs at most half of it).
void Rabenseifner::run(const cct_coll_args& a) {
  if (a.count == 0) return;
  const std::size_t elem = elem_size(a);
  const std::size_t bytes = a.count * elem;
  std::byte* acc = output_of(a);
  std::byte* tmp = scratch_.get(bytes);
  const Fold fold(comm_.size(), comm_.rank());
  if (fold_in(comm_, fold, input_of(a), acc, tmp, a)) {
    const Blocks blocks(a.count, fold.pof2(), elem);
    reduce_scatter_halving(comm_, fold, blocks, acc, tmp, a);
    allgather_doubling(comm_, fold, blocks, acc, a.tag);
  }
  fold_out(comm_, fold, acc, bytes, a.tag);
}

}  // namespace cct::plugins::allreduce
