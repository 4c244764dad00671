#include "switch_assisted/counter_barrier.hpp"

#include "switch_assisted/route_depth.hpp"

namespace cct::plugins::switch_assisted {
namespace {

constexpr uint32_t kCounter = 0;

}  // namespace

// The last rank to arrive waits for its fetch_add's reply from the switch
// holding the counter, then for its wait_ge's: two round trips of empty
// control packets, each through the route tree's levels.
cct_cost CounterBarrier::cost(const sdk::Comm& comm, const cct_coll_args&,
                              std::span<const int64_t>) {
  if (comm.size() < 2) return {};
  return sdk::flat_cost(comm, 4 * route_depth(comm.size()), 0);
}

CounterBarrier::CounterBarrier(const sdk::Comm& comm, std::span<const int64_t>) : comm_(comm) {}

void CounterBarrier::run(const cct_coll_args&) {
  cct_transport_instance* tr = comm_.transport();
  const auto size = static_cast<uint64_t>(comm_.size());
  uint64_t old = 0;
  sdk::check_status(tr->atomic->fetch_add(tr, kCounter, 1, &old), "atomic fetch_add", tr);
  const uint64_t generation_end = (old / size + 1) * size;
  sdk::check_status(tr->atomic->wait_ge(tr, kCounter, generation_end), "atomic wait_ge", tr);
}

}  // namespace cct::plugins::switch_assisted
