#include "alltoall/linear_throttled.hpp"

#include <string>

#include "alltoall/outgoing.hpp"
#include "common/args.hpp"
#include "common/crossings.hpp"

namespace cct::plugins::alltoall {
namespace {

constexpr int64_t kMaxWindow = 1 << 16;

// A window of one request could deadlock: every rank would wait on its
// receive before posting the send its neighbour waits for. With two or more,
// the oldest pending operation of some rank is always matched.
std::size_t checked_window(std::span<const int64_t> params) {
  const int64_t value = params[0];
  if (value < 2 || value > kMaxWindow)
    throw sdk::Unsupported("max_requests " + std::to_string(value) +
                           (value < 2 ? " < 2" : " > " + std::to_string(kMaxWindow)));
  return static_cast<std::size_t>(value);
}

}  // namespace

// The n - 1 receives and sends, paired, fill the window of max_requests in
// turn: ceil(2 (n - 1) / max_requests) batches whose latencies follow each
// other, while every block leaves this rank one after another. Every
// rank's blocks for the other half cross it once.
cct_cost LinearThrottled::cost(const sdk::Comm& comm, const cct_coll_args& a,
                               std::span<const int64_t> params) {
  const auto requests = static_cast<int64_t>(checked_window(params));
  const int64_t peers = comm.size() - 1;
  const double batches = static_cast<double>((2 * peers + requests - 1) / requests);
  const double block = a.count * elem_size(a);
  return sdk::flat_cost(comm, batches, peers * block).cross(direct_crossings(comm.size()) * block);
}

void LinearThrottled::check(const sdk::Comm&, const cct_coll_args&,
                            std::span<const int64_t> params) {
  checked_window(params);
}

LinearThrottled::LinearThrottled(const sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm), window_(checked_window(params)) {}

void LinearThrottled::run(const cct_coll_args& a) {
  if (a.count == 0) return;
  const int n = comm_.size(), rank = comm_.rank();
  const std::size_t block = a.count * elem_size(a);
  const std::byte* in = outgoing_blocks(a, scratch_, n * block);
  std::byte* out = output_of(a);
  copy_bytes(out + rank * block, in + rank * block, block);
  oldest_ = in_flight_ = 0;
  for (int k = 1; k < n; ++k) {
    const int from = (rank - k + n) % n, to = (rank + k) % n;
    comm_.irecv(out + from * block, block, from, a.tag, next_request());
    comm_.isend(in + to * block, block, to, a.tag, next_request());
  }
  wait_all_requests();
}

// A free request of the window, after waiting for the oldest one when the
// window is full.
cct_request& LinearThrottled::next_request() {
  if (in_flight_ == window_.size()) {
    comm_.waitall(&window_[oldest_], 1);
    oldest_ = (oldest_ + 1) % window_.size();
    --in_flight_;
  }
  return window_[(oldest_ + in_flight_++) % window_.size()];
}

void LinearThrottled::wait_all_requests() {
  for (; in_flight_ > 0; --in_flight_) {
    comm_.waitall(&window_[oldest_], 1);
    oldest_ = (oldest_ + 1) % window_.size();
  }
}

}  // namespace cct::plugins::alltoall
