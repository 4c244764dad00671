#include "reduce/rabenseifner.hpp"

#include "common/args.hpp"
#include "common/crossings.hpp"
#include "common/halving.hpp"
#include "common/rooted.hpp"

namespace cct::plugins::reduce {
namespace {

// gather_to_root's messages, in blocks: at mask m, participant id with m
// its lowest set bit sends m blocks to id - m; those that cross the halves.
double gather_crossings(int n) {
  const int p = Fold(n, 0).pof2();
  double blocks = 0;
  for (int m = 1; m < p; m *= 2)
    blocks +=
        m * sdk::crossing_ranks(n, [&](int r) {
          const Fold fold(n, r);
          return !fold.sits_out() && fold.id() % (2 * m) == m ? fold.rank_of(fold.id() - m) : -1;
        });
  return blocks;
}

}  // namespace

// The fold's whole vector where p is not a power of two, then log2(p')
// halving steps that send and combine (p'-1)/p' of the vector, then log2(p')
// gather steps that bring the root the same (p' the fold's power of two).
// Across the halves: the fold's crossing vectors, the halving's crossing
// windows, and the gather's crossing edges, each with its blocks of 1/p'.
cct_cost Rabenseifner::cost(const sdk::Comm& comm, const cct_coll_args& args,
                            std::span<const int64_t>) {
  const double bytes = static_cast<double>(rooted_bytes(args, comm.size()));
  const Fold fold(comm.size(), 0);
  const double folded = fold.pof2() < comm.size() ? 1 : 0;
  const double steps = binomial_depth(fold.pof2());
  const double spread = bytes * (fold.pof2() - 1) / fold.pof2();
  const double block = bytes / fold.pof2();
  return sdk::flat_cost(comm, folded + 2 * steps, folded * bytes + 2 * spread,
                        folded * bytes + spread)
      .cross(fold_pair_crossing(comm.size()) * bytes +
             (doubling_crossings(comm.size()) + gather_crossings(comm.size())) * block);
}

Rabenseifner::Rabenseifner(const sdk::Comm& comm, std::span<const int64_t>) : comm_(comm) {}

// The fold is taken relative to the root, so the root is participant 0 and
// the gather ends there without an extra hop. A rank that sits out only
// sends its input. For the others acc is recvbuf at the root, scratch
// elsewhere; tmp takes one whole vector (the fold's message).
void Rabenseifner::run(const cct_coll_args& a) {
  const std::size_t bytes = rooted_bytes(a, comm_.size());
  if (bytes == 0) return;
  const Fold fold(comm_.size(), comm_.rank(), a.root);
  if (fold.sits_out()) {
    comm_.send(input_of(a), bytes, fold.partner(), a.tag);
    return;
  }
  const bool root = comm_.rank() == a.root;
  std::byte* acc = root ? output_of(a) : scratch_.get(2 * bytes);
  std::byte* tmp = root ? scratch_.get(bytes) : acc + bytes;
  fold_in(comm_, fold, input_of(a), acc, tmp, a);
  const Blocks blocks(a.count, fold.pof2(), elem_size(a));
  reduce_scatter_halving(comm_, fold, blocks, acc, tmp, a);
  gather_to_root(fold, blocks, acc, a.tag);
}

// Participant id holds block id. For mask = 1, 2, ..: a participant with bit
// `mask` set sends the blocks it has gathered, [id, id + mask), to id - mask
// and is done; the others receive [id + mask, id + 2 * mask) in place.
void Rabenseifner::gather_to_root(const Fold& fold, const Blocks& blocks, std::byte* acc,
                                  uint32_t tag) const {
  const int id = fold.id();
  for (int mask = 1; mask < fold.pof2(); mask <<= 1) {
    if (id & mask) {
      comm_.send(acc + blocks.offset(id), blocks.bytes(id, mask), fold.rank_of(id - mask), tag);
      return;
    }
    const int from = id + mask;
    comm_.recv(acc + blocks.offset(from), blocks.bytes(from, mask), fold.rank_of(from), tag);
  }
}

}  // namespace cct::plugins::reduce
