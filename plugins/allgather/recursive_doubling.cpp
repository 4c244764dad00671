#include "allgather/recursive_doubling.hpp"

#include <bit>

#include "common/args.hpp"
#include "common/blocks.hpp"
#include "common/crossings.hpp"
#include "common/doubling.hpp"
#include "common/fold.hpp"

namespace cct::plugins::allgather {
namespace {

void require_pow2(const sdk::Comm& comm) {
  if (!std::has_single_bit(static_cast<unsigned>(comm.size())))
    throw sdk::Unsupported("recursive_doubling: communicator size is not a power of two");
}

}  // namespace

// The host enforces CCT_LIMIT_POW2_ONLY already; this keeps the plugin safe
// under a host that does not.
void RecursiveDoubling::check(const sdk::Comm& comm, const cct_coll_args&,
                              std::span<const int64_t>) {
  require_pow2(comm);
}

// log2(n) exchanges whose windows double: 1, 2, .., n/2 blocks, n - 1 in
// all. Only the last (d = n/2) crosses the halves, at every rank.
cct_cost RecursiveDoubling::cost(const sdk::Comm& comm, const cct_coll_args& a,
                                 std::span<const int64_t>) {
  require_pow2(comm);
  const int n = comm.size();
  const double block = a.count * elem_size(a);
  return sdk::flat_cost(comm, sdk::steps_to_reach(n, 2), (n - 1.0) * block)
      .cross(doubling_crossings(n) * block);
}

RecursiveDoubling::RecursiveDoubling(const sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm) {
  require_pow2(comm);
}

void RecursiveDoubling::run(const cct_coll_args& a) {
  if (a.count == 0) return;
  const int n = comm_.size(), rank = comm_.rank();
  const std::size_t elem = elem_size(a);
  std::byte* out = output_of(a);
  if (!in_place(a)) copy_bytes(out + rank * a.count * elem, input_of(a), a.count * elem);
  // On a power of two the fold is the identity: participant id is rank id.
  allgather_doubling(comm_, Fold(n, rank), Blocks(n * a.count, n, elem), out, a.tag);
}

}  // namespace cct::plugins::allgather
