#include "scatterv/linear.hpp"

#include "common/args.hpp"
#include "common/rooted.hpp"

namespace cct::plugins::scatterv {

// The root posts all p - 1 sends at once: one latency, and the blocks
// leave it one after another. Across the halves: the upper half's
// blocks, from root 0.
cct_cost Linear::cost(const sdk::Comm& comm, const cct_coll_args& a, std::span<const int64_t>) {
  if (comm.size() < 2) return {};
  const auto bytes = static_cast<double>(a.count * elem_size(a));
  return root_blocks_cost(comm, 1, bytes);
}

Linear::Linear(const sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm), sends_(static_cast<std::size_t>(comm.size())) {}

void Linear::run(const cct_coll_args& a) {
  const std::size_t elem = elem_size(a);
  if (comm_.rank() != a.root) {
    comm_.recv(a.recvbuf, a.count * elem, a.root, a.tag);
    return;
  }
  const auto* in = static_cast<const std::byte*>(a.sendbuf);
  std::size_t posted = 0;
  for (int r = 0; r < comm_.size(); ++r)
    if (r != a.root)
      comm_.isend(in + a.sdispls[r] * elem, a.sendcounts[r] * elem, r, a.tag, sends_[posted++]);
  if (a.recvbuf != CCT_IN_PLACE)
    copy_bytes(output_of(a), in + a.sdispls[a.root] * elem, a.sendcounts[a.root] * elem);
  comm_.waitall(sends_.data(), posted);
}

}  // namespace cct::plugins::scatterv
