#include "gatherv/linear_throttled.hpp"

#include <algorithm>
#include <cmath>

#include "common/args.hpp"
#include "common/rooted.hpp"
#include "common/window.hpp"

namespace cct::plugins::gatherv {

// Per window of admitted senders, a go message and then their blocks: the
// root waits for ceil((p - 1) / window) of both, the p - 1 blocks one
// after another. Across the halves: the upper half's blocks, to root 0
// (the go messages are empty).
cct_cost LinearThrottled::cost(const sdk::Comm& comm, const cct_coll_args& a,
                               std::span<const int64_t> params) {
  const std::size_t window = effective_window(params[0], comm.size());
  if (comm.size() < 2) return {};
  const double windows = std::ceil((comm.size() - 1.0) / static_cast<double>(window));
  const auto bytes = static_cast<double>(a.count * elem_size(a));
  return root_blocks_cost(comm, 2 * windows, bytes);
}

void LinearThrottled::check(const sdk::Comm&, const cct_coll_args&,
                            std::span<const int64_t> params) {
  validate_window(params[0]);
}

LinearThrottled::LinearThrottled(const sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm), window_(effective_window(params[0], comm.size())), slots_(window_) {}

void LinearThrottled::run(const cct_coll_args& a) {
  if (comm_.rank() == a.root) return receive_all(a);
  comm_.recv(&token_, 0, a.root, a.tag);
  comm_.send(a.sendbuf, a.count * elem_size(a), a.root, a.tag);
}

// Admits the ranks in virtual order; sender i reuses the slot of sender
// i - window once that one's block has arrived.
void LinearThrottled::receive_all(const cct_coll_args& a) {
  const std::size_t elem = elem_size(a);
  std::byte* out = output_of(a);
  const int size = comm_.size();
  for (int vrank = 1; vrank < size; ++vrank) {
    const auto admitted = static_cast<std::size_t>(vrank - 1);
    auto& slot = slots_[admitted % window_];
    if (admitted >= window_) comm_.waitall(slot.data(), slot.size());
    const int r = to_real(vrank, a.root, size);
    comm_.irecv(out + a.rdispls[r] * elem, a.recvcounts[r] * elem, r, a.tag, slot[0]);
    comm_.isend(&token_, 0, r, a.tag, slot[1]);
  }
  if (!in_place(a))
    copy_bytes(out + a.rdispls[a.root] * elem, input_of(a), a.recvcounts[a.root] * elem);
  const std::size_t in_flight = std::min<std::size_t>(window_, size - 1);
  for (std::size_t i = 0; i < in_flight; ++i) comm_.waitall(slots_[i].data(), slots_[i].size());
}

}  // namespace cct::plugins::gatherv
