#include "alltoallv/linear_throttled.hpp"

#include <algorithm>

#include "alltoallv/blocks.hpp"
#include "common/crossings.hpp"
#include "common/window.hpp"

namespace cct::plugins::alltoallv {

// Step k waits for step k - window: ceil((n - 1) / window) batches whose
// latencies follow each other, while the n - 1 blocks (count elements
// each) leave this rank one after another. Every rank's blocks for the
// other half cross it once.
cct_cost LinearThrottled::cost(const sdk::Comm& comm, const cct_coll_args& a,
                               std::span<const int64_t> params) {
  const std::size_t window = effective_window(params[0], comm.size());
  const std::size_t peers = comm.size() - 1;
  const double batches = static_cast<double>((peers + window - 1) / window);
  const double block = a.count * elem_size(a);
  return sdk::flat_cost(comm, batches, peers * block).cross(direct_crossings(comm.size()) * block);
}

void LinearThrottled::check(const sdk::Comm&, const cct_coll_args&,
                            std::span<const int64_t> params) {
  validate_window(params[0]);
}

LinearThrottled::LinearThrottled(const sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm), window_(effective_window(params[0], comm.size())), slots_(window_) {}

// Step k reuses the slot of step k - window once that one is done. In
// place the input is copied aside: a block received at step k overwrites
// the block for the same peer, sent only at step n - k.
void LinearThrottled::run(const cct_coll_args& a) {
  const int n = comm_.size(), rank = comm_.rank();
  const Blocks blocks(a, n, aside_);
  copy_bytes(blocks.from(rank), blocks.to(rank), blocks.to_bytes(rank));
  for (int k = 1; k < n; ++k) {
    const auto step = static_cast<std::size_t>(k - 1);
    auto& slot = slots_[step % window_];
    if (step >= window_) comm_.waitall(slot.data(), slot.size());
    const int from = (rank - k + n) % n, to = (rank + k) % n;
    comm_.irecv(blocks.from(from), blocks.from_bytes(from), from, a.tag, slot[0]);
    comm_.isend(blocks.to(to), blocks.to_bytes(to), to, a.tag, slot[1]);
  }
  const std::size_t in_flight = std::min<std::size_t>(window_, n - 1);
  for (std::size_t i = 0; i < in_flight; ++i) comm_.waitall(slots_[i].data(), slots_[i].size());
}

}  // namespace cct::plugins::alltoallv
