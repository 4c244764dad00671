#include "barrier/recursive_doubling.hpp"

#include <bit>

namespace cct::plugins::barrier {
namespace {

// The ranks of the butterfly: the largest power of two <= size.
int butterfly_ranks(int size) {
  return static_cast<int>(std::bit_floor(static_cast<unsigned>(size)));
}

}  // namespace

// log2(p2) butterfly rounds of empty messages (p2 the largest power of two
// <= p); where p > p2, a folded rank's arrival comes before them and its
// release after: two more.
cct_cost RecursiveDoubling::cost(const cct::sdk::Comm& comm, const cct_coll_args&,
                                 std::span<const int64_t>) {
  const int pow2 = butterfly_ranks(comm.size());
  const double folding = comm.size() > pow2 ? 2 : 0;
  return cct::sdk::flat_cost(comm, cct::sdk::steps_to_reach(pow2, 2) + folding, 0);
}

RecursiveDoubling::RecursiveDoubling(const cct::sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm), pow2_(butterfly_ranks(comm.size())), extra_(comm.size() - pow2_) {}

void RecursiveDoubling::run(const cct_coll_args& args) {
  const int rank = comm_.rank();
  if (rank >= pow2_) {  // folded: arrive through the partner, leave when it says so
    comm_.send(&token_, 0, rank - pow2_, args.tag);
    comm_.recv(&token_, 0, rank - pow2_, args.tag);
    return;
  }
  const bool stands_in = rank < extra_;
  if (stands_in) comm_.recv(&token_, 0, rank + pow2_, args.tag);
  butterfly(args.tag);
  if (stands_in) comm_.send(&token_, 0, rank + pow2_, args.tag);
}

void RecursiveDoubling::butterfly(uint32_t tag) {
  const int rank = comm_.rank();
  for (int mask = 1; mask < pow2_; mask *= 2) {
    const int partner = rank ^ mask;
    comm_.sendrecv(&token_, 0, partner, &token_, 0, partner, tag);
  }
}

}  // namespace cct::plugins::barrier
