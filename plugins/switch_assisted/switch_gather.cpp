#include "switch_assisted/switch_gather.hpp"

#include "common/rooted.hpp"
#include "switch_assisted/route_depth.hpp"
#include "switch_assisted/switch_status.hpp"

namespace cct::plugins::switch_assisted {

// Every rank sends its block once and the switches pack them on the way:
// the root waits for the p - 1 blocks, packed, through every level of the
// route tree. Across the halves' subtrees: the upper half's blocks, packed.
cct_cost SwitchGather::cost(const sdk::Comm& comm, const cct_coll_args& args,
                            std::span<const int64_t>) {
  const std::size_t bytes = rooted_bytes(args, comm.size());
  if (bytes == 0 || comm.size() < 2) return {};
  return root_blocks_cost(comm, route_depth(comm.size()), static_cast<double>(bytes));
}

SwitchGather::SwitchGather(const sdk::Comm& comm, std::span<const int64_t>) : comm_(comm) {}

void SwitchGather::run(const cct_coll_args& args) {
  const std::size_t bytes = rooted_bytes(args, comm_.size());
  if (bytes == 0) return;
  const void* send =
      in_place(args) ? output_of(args) + static_cast<std::size_t>(args.root) * bytes : args.sendbuf;
  cct_transport_instance* tr = comm_.transport();
  cct_error err{};
  check_switch_status(tr->aggregate->gather(tr, send, args.recvbuf, bytes, args.root, &err),
                      "aggregate gather", err);
}

}  // namespace cct::plugins::switch_assisted
