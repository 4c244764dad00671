#include "allreduce/recursive_doubling.hpp"

#include "common/args.hpp"
#include "common/crossings.hpp"
#include "common/fold.hpp"

namespace cct::plugins::allreduce {

// log2(p) whole-vector exchanges, each reduced, on the p = 2^floor(log2 n)
// participants; off powers of two the fold adds a whole-vector step in
// (reduced) before them and one out after them. The whole vector crosses
// the halves on every exchange and fold message that does.
cct_cost RecursiveDoubling::cost(const sdk::Comm& comm, const cct_coll_args& a,
                                 std::span<const int64_t>) {
  const int n = comm.size();
  const Fold fold(n, 0);
  const double folds = fold.pof2() < n ? 1 : 0;
  const double steps = sdk::steps_to_reach(fold.pof2(), 2);
  const double bytes = a.count * elem_size(a);
  double crossings = 2 * fold_pair_crossing(n);
  for (int d = 1; d < fold.pof2(); d *= 2) crossings += fold_crossing(n, d);
  return sdk::flat_cost(comm, steps + 2 * folds, (steps + 2 * folds) * bytes,
                        (steps + folds) * bytes)
      .cross(crossings * bytes);
}

RecursiveDoubling::RecursiveDoubling(const sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm) {}

// Both partners of a step combine the same two operands in the same order,
// the lower id's first, so every rank ends with bit-identical results,
// floating point included: + and * are commutative bit for bit, but min and
// max keep their first operand when the two compare equal (+0 and -0), and
// a NaN's payload depends on the order too.
void RecursiveDoubling::run(const cct_coll_args& a) {
  if (a.count == 0) return;
  const std::size_t bytes = a.count * elem_size(a);
  std::byte* acc = output_of(a);
  std::byte* tmp = scratch_.get(bytes);
  const Fold fold(comm_.size(), comm_.rank());
  if (fold_in(comm_, fold, input_of(a), acc, tmp, a)) {
    for (int d = 1; d < fold.pof2(); d *= 2) {
      const int peer = fold.rank_of(fold.id() ^ d);
      comm_.sendrecv(acc, bytes, peer, tmp, bytes, peer, a.tag);
      if (fold.id() < (fold.id() ^ d))
        sdk::reduce_into(acc, acc, tmp, a.count, a.dtype, a.op);
      else
        sdk::reduce_into(acc, tmp, acc, a.count, a.dtype, a.op);
    }
  }
  fold_out(comm_, fold, acc, bytes, a.tag);
}

}  // namespace cct::plugins::allreduce
