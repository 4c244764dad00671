#include "switch_assisted/counter_barrier.hpp"

namespace cct::plugins::switch_assisted {
namespace {

constexpr uint32_t kCounter = 0;

}  // namespace

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
