#include "scatter/linear_throttled.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "common/rooted.hpp"
#include "common/window.hpp"

namespace cct::plugins::scatter {

// The root starts send i once send i - window is done: ceil((p - 1) /
// window) latencies one after another, and the p - 1 blocks leave it one
// after another. Across the halves: the upper half's blocks, from root 0.
cct_cost LinearThrottled::cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                               std::span<const int64_t> params) {
  const std::size_t window = effective_window(params[0], comm.size());
  const std::size_t bytes = rooted_bytes(args, comm.size());
  if (bytes == 0 || comm.size() < 2) return {};
  const double windows = std::ceil((comm.size() - 1.0) / static_cast<double>(window));
  return root_blocks_cost(comm, windows, static_cast<double>(bytes));
}

void LinearThrottled::check(const cct::sdk::Comm&, const cct_coll_args&,
                            std::span<const int64_t> params) {
  validate_window(params[0]);
}

LinearThrottled::LinearThrottled(const cct::sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm), window_(effective_window(params[0], comm.size())), sends_(window_) {}

void LinearThrottled::run(const cct_coll_args& args) {
  const std::size_t bytes = rooted_bytes(args, comm_.size());
  if (bytes == 0) return;
  if (comm_.rank() == args.root) return send_all(args, bytes);
  comm_.recv(args.recvbuf, bytes, args.root, args.tag);
}

// Serves the ranks in virtual order; send i reuses the slot of send
// i - window once that one is done.
void LinearThrottled::send_all(const cct_coll_args& args, std::size_t bytes) {
  const auto* in = static_cast<const std::byte*>(args.sendbuf);
  const int size = comm_.size();
  for (int vrank = 1; vrank < size; ++vrank) {
    const std::size_t started = vrank - 1;
    cct_request& slot = sends_[started % window_];
    if (started >= window_) comm_.waitall(&slot, 1);
    const int rank = to_real(vrank, args.root, size);
    comm_.isend(in + rank * bytes, bytes, rank, args.tag, slot);
  }
  if (args.recvbuf != CCT_IN_PLACE) std::memcpy(args.recvbuf, in + args.root * bytes, bytes);
  comm_.waitall(sends_.data(), std::min<std::size_t>(window_, size - 1));
}

}  // namespace cct::plugins::scatter
