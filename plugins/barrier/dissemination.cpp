#include "barrier/dissemination.hpp"

namespace cct::plugins::barrier {

// Every rank hears from every other through ceil(log2 p) rounds, each
// waiting for the empty message of the round before.
cct_cost Dissemination::cost(const cct::sdk::Comm& comm, const cct_coll_args&,
                             std::span<const int64_t>) {
  return cct::sdk::flat_cost(comm, cct::sdk::steps_to_reach(comm.size(), 2), 0);
}

Dissemination::Dissemination(const cct::sdk::Comm& comm, std::span<const int64_t>) : comm_(comm) {}

void Dissemination::run(const cct_coll_args& args) {
  const int rank = comm_.rank();
  const int size = comm_.size();
  for (int distance = 1; distance < size; distance *= 2) {
    const int to = (rank + distance) % size;
    const int from = (rank - distance + size) % size;
    comm_.sendrecv(&token_, 0, to, &token_, 0, from, args.tag);
  }
}

}  // namespace cct::plugins::barrier
