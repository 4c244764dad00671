#include "gather/linear_throttled.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "common/rooted.hpp"
#include "common/window.hpp"

namespace cct::plugins::gather {

// Per window of admitted senders, a go message and then their blocks: the
// root waits for ceil((p - 1) / window) of both, the p - 1 blocks one
// after another. Across the halves: the upper half's blocks, to root 0
// (the go messages are empty).
cct_cost LinearThrottled::cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                               std::span<const int64_t> params) {
  const std::size_t window = effective_window(params[0], comm.size());
  const std::size_t bytes = rooted_bytes(args, comm.size());
  if (bytes == 0 || comm.size() < 2) return {};
  const double windows = std::ceil((comm.size() - 1.0) / static_cast<double>(window));
  return root_blocks_cost(comm, 2 * windows, static_cast<double>(bytes));
}

void LinearThrottled::check(const cct::sdk::Comm&, const cct_coll_args&,
                            std::span<const int64_t> params) {
  validate_window(params[0]);
}

LinearThrottled::LinearThrottled(const cct::sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm), window_(effective_window(params[0], comm.size())), slots_(window_) {}

void LinearThrottled::run(const cct_coll_args& args) {
  const std::size_t bytes = rooted_bytes(args, comm_.size());
  if (bytes == 0) return;
  if (comm_.rank() == args.root) return receive_all(args, bytes);
  comm_.recv(&token_, 0, args.root, args.tag);
  comm_.send(args.sendbuf, bytes, args.root, args.tag);
}

// Admits the ranks in virtual order; sender i reuses the slot of sender
// i - window once that one's block has arrived.
void LinearThrottled::receive_all(const cct_coll_args& args, std::size_t bytes) {
  auto* out = static_cast<std::byte*>(args.recvbuf);
  const int size = comm_.size();
  for (int vrank = 1; vrank < size; ++vrank) {
    const std::size_t admitted = vrank - 1;
    auto& slot = slots_[admitted % window_];
    if (admitted >= window_) comm_.waitall(slot.data(), slot.size());
    const int rank = to_real(vrank, args.root, size);
    comm_.irecv(out + rank * bytes, bytes, rank, args.tag, slot[0]);
    comm_.isend(&token_, 0, rank, args.tag, slot[1]);
  }
  if (args.sendbuf != CCT_IN_PLACE) std::memcpy(out + args.root * bytes, args.sendbuf, bytes);
  const std::size_t in_flight = std::min<std::size_t>(window_, size - 1);
  for (std::size_t i = 0; i < in_flight; ++i) comm_.waitall(slots_[i].data(), slots_[i].size());
}

}  // namespace cct::plugins::gather
