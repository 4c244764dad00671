#include "allreduce/rabenseifner.hpp"

#include "common/args.hpp"
#include "common/blocks.hpp"
#include "common/doubling.hpp"
#include "common/fold.hpp"
#include "common/halving.hpp"

namespace cct::plugins::allreduce {

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
