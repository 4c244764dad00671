#include "switch_assisted/switch_bcast.hpp"

#include "common/rooted.hpp"
#include "switch_assisted/route_depth.hpp"
#include "switch_assisted/switch_status.hpp"

namespace cct::plugins::switch_assisted {

// The root sends the buffer once and the switches replicate it: the last
// rank waits for the buffer to pass every level of the route tree, streamed
// through them once. Across the halves' subtrees: the buffer once.
cct_cost SwitchBcast::cost(const sdk::Comm& comm, const cct_coll_args& args,
                           std::span<const int64_t>) {
  const std::size_t bytes = rooted_bytes(args, comm.size());
  if (bytes == 0 || comm.size() < 2) return {};
  return sdk::flat_cost(comm, route_depth(comm.size()), static_cast<double>(bytes))
      .cross(static_cast<double>(bytes));
}

SwitchBcast::SwitchBcast(const sdk::Comm& comm, std::span<const int64_t>) : comm_(comm) {}

void SwitchBcast::run(const cct_coll_args& args) {
  const std::size_t bytes = rooted_bytes(args, comm_.size());
  if (bytes == 0) return;
  cct_transport_instance* tr = comm_.transport();
  cct_error err{};
  check_switch_status(tr->mcast->bcast(tr, args.recvbuf, bytes, args.root, &err), "mcast bcast",
                      err);
}

}  // namespace cct::plugins::switch_assisted
