#include "barrier/central_counter.hpp"

#include <atomic>

namespace cct::plugins::barrier {
namespace {

// Both words live in rank 0's part, each on its own cache line, so that
// spinning on the flag does not slow down the increments of the counter.
constexpr std::size_t kCounterOffset = 0;
constexpr std::size_t kFlagOffset = 64;
constexpr std::size_t kRegionBytes = 128;

}  // namespace

// The p increments of the one counter line take it from rank to rank one
// after another (p - 1 handoffs), then the waiters see the last one's flag:
// p waits of no bytes.
cct_cost CentralCounter::cost(const cct::sdk::Comm& comm, const cct_coll_args&,
                              std::span<const int64_t>) {
  if (comm.size() < 2) return {};
  return cct::sdk::flat_cost(comm, comm.size(), 0);
}

CentralCounter::CentralCounter(const cct::sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm), region_(comm, kRegionBytes) {}

uint64_t* CentralCounter::word(std::size_t offset) const {
  return reinterpret_cast<uint64_t*>(static_cast<char*>(region_.peer(0)) + offset);
}

void CentralCounter::run(const cct_coll_args&) {
  sense_ ^= 1;
  std::atomic_ref<uint64_t> counter(*word(kCounterOffset));
  uint64_t* flag = word(kFlagOffset);
  const uint64_t arrived = counter.fetch_add(1, std::memory_order_acq_rel) + 1;
  if (arrived == static_cast<uint64_t>(comm_.size())) {
    // Ordered before the release below: no rank increments again before it
    // has seen the flag flip.
    counter.store(0, std::memory_order_relaxed);
    cct::sdk::store_release(flag, sense_);
  } else {
    region_.wait(flag, sense_, CCT_WAIT_EQ);
  }
}

}  // namespace cct::plugins::barrier
