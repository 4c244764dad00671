#include "gatherv/linear.hpp"

#include "common/args.hpp"
#include "common/rooted.hpp"

namespace cct::plugins::gatherv {

// The root has all p - 1 receives posted at once: one latency, and the
// blocks reach it one after another. Across the halves: the upper half's
// blocks, to root 0.
cct_cost Linear::cost(const sdk::Comm& comm, const cct_coll_args& a, std::span<const int64_t>) {
  if (comm.size() < 2) return {};
  const auto bytes = static_cast<double>(a.count * elem_size(a));
  return root_blocks_cost(comm, 1, bytes);
}

Linear::Linear(const sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm), receives_(static_cast<std::size_t>(comm.size())) {}

void Linear::run(const cct_coll_args& a) {
  const std::size_t elem = elem_size(a);
  if (comm_.rank() != a.root) {
    comm_.send(a.sendbuf, a.count * elem, a.root, a.tag);
    return;
  }
  std::byte* out = output_of(a);
  std::size_t posted = 0;
  for (int r = 0; r < comm_.size(); ++r)
    if (r != a.root)
      comm_.irecv(out + a.rdispls[r] * elem, a.recvcounts[r] * elem, r, a.tag, receives_[posted++]);
  if (!in_place(a))
    copy_bytes(out + a.rdispls[a.root] * elem, input_of(a), a.recvcounts[a.root] * elem);
  comm_.waitall(receives_.data(), posted);
}

}  // namespace cct::plugins::gatherv
