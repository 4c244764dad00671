#include "alltoallv/scheduled.hpp"

#include "alltoallv/blocks.hpp"
#include "common/crossings.hpp"
#include "scheduled_alltoall/one_factor.hpp"

namespace cct::plugins::alltoallv {

// One pair swap of one block (count elements) per round of the
// one-factorisation; on odd n a chain of swaps can run through a busy rank
// every round. Every pair meets once, so every rank's blocks for the
// other half cross it once.
cct_cost Scheduled::cost(const sdk::Comm& comm, const cct_coll_args& a, std::span<const int64_t>) {
  const double rounds = alltoall::one_factor_rounds(comm.size());
  const double block = a.count * elem_size(a);
  return sdk::flat_cost(comm, rounds, rounds * block).cross(direct_crossings(comm.size()) * block);
}

Scheduled::Scheduled(const sdk::Comm& comm, std::span<const int64_t>) : comm_(comm) {}

void Scheduled::run(const cct_coll_args& a) {
  const int n = comm_.size(), rank = comm_.rank();
  const Blocks blocks(a);
  copy_bytes(blocks.from(rank), blocks.to(rank), blocks.to_bytes(rank));
  for (int round = 0; round < alltoall::one_factor_rounds(n); ++round) {
    const int peer = alltoall::one_factor_partner(rank, round, n);
    if (peer < 0) continue;
    const std::byte* send = blocks.to(peer);
    if (in_place(a)) {
      std::byte* staged = staged_.get(blocks.to_bytes(peer));
      copy_bytes(staged, send, blocks.to_bytes(peer));
      send = staged;
    }
    comm_.sendrecv(send, blocks.to_bytes(peer), peer, blocks.from(peer), blocks.from_bytes(peer),
                   peer, a.tag);
  }
}

}  // namespace cct::plugins::alltoallv
