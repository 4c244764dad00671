#include "scatterv/linear_throttled.hpp"

#include <algorithm>
#include <cmath>

#include "common/args.hpp"
#include "common/rooted.hpp"
#include "common/window.hpp"

namespace cct::plugins::scatterv {

// The root starts send i once send i - window is done: ceil((p - 1) /
// window) latencies one after another, and the p - 1 blocks leave it one
// after another. Across the halves: the upper half's blocks, from root 0.
cct_cost LinearThrottled::cost(const sdk::Comm& comm, const cct_coll_args& a,
                               std::span<const int64_t> params) {
  const std::size_t window = effective_window(params[0], comm.size());
  if (comm.size() < 2) return {};
  const double windows = std::ceil((comm.size() - 1.0) / static_cast<double>(window));
  const auto bytes = static_cast<double>(a.count * elem_size(a));
  return root_blocks_cost(comm, windows, bytes);
}

void LinearThrottled::check(const sdk::Comm&, const cct_coll_args&,
                            std::span<const int64_t> params) {
  validate_window(params[0]);
}

LinearThrottled::LinearThrottled(const sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm), window_(effective_window(params[0], comm.size())), sends_(window_) {}

// Send i reuses the slot of send i - window once that one has left.
void LinearThrottled::run(const cct_coll_args& a) {
  const std::size_t elem = elem_size(a);
  if (comm_.rank() != a.root) {
    comm_.recv(a.recvbuf, a.count * elem, a.root, a.tag);
    return;
  }
  const auto* in = static_cast<const std::byte*>(a.sendbuf);
  const int size = comm_.size();
  for (int vrank = 1; vrank < size; ++vrank) {
    const auto sent = static_cast<std::size_t>(vrank - 1);
    cct_request& slot = sends_[sent % window_];
    if (sent >= window_) comm_.waitall(&slot, 1);
    const int r = to_real(vrank, a.root, size);
    comm_.isend(in + a.sdispls[r] * elem, a.sendcounts[r] * elem, r, a.tag, slot);
  }
  if (a.recvbuf != CCT_IN_PLACE)
    copy_bytes(output_of(a), in + a.sdispls[a.root] * elem, a.sendcounts[a.root] * elem);
  comm_.waitall(sends_.data(), std::min<std::size_t>(window_, size - 1));
}

}  // namespace cct::plugins::scatterv
