#include "scheduled_alltoall/scheduled.hpp"

#include "common/args.hpp"
#include "common/crossings.hpp"
#include "scheduled_alltoall/one_factor.hpp"

namespace cct::plugins::alltoall {

// One pair swap of one block per round of the one-factorisation; on odd n
// a chain of swaps can run through a busy rank every round. Every pair
// meets once, so every rank's blocks for the other half cross it once.
cct_cost Scheduled::cost(const sdk::Comm& comm, const cct_coll_args& a, std::span<const int64_t>) {
  const double rounds = one_factor_rounds(comm.size());
  const double block = a.count * elem_size(a);
  return sdk::flat_cost(comm, rounds, rounds * block).cross(direct_crossings(comm.size()) * block);
}

Scheduled::Scheduled(const sdk::Comm& comm, std::span<const int64_t>) : comm_(comm) {}

void Scheduled::run(const cct_coll_args& a) {
  if (a.count == 0) return;
  const int n = comm_.size(), rank = comm_.rank();
  const std::size_t block = a.count * elem_size(a);
  const std::byte* in = input_of(a);
  std::byte* out = output_of(a);
  copy_bytes(out + rank * block, in + rank * block, block);
  std::byte* staged = in_place(a) ? staged_.get(block) : nullptr;
  for (int round = 0; round < one_factor_rounds(n); ++round) {
    const int peer = one_factor_partner(rank, round, n);
    if (peer < 0) continue;
    const std::byte* send = in + peer * block;
    if (staged != nullptr) {
      copy_bytes(staged, send, block);
      send = staged;
    }
    comm_.sendrecv(send, block, peer, out + peer * block, block, peer, a.tag);
  }
}

}  // namespace cct::plugins::alltoall
