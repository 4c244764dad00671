#include "switch_assisted/switch_reduce.hpp"

#include "common/rooted.hpp"
#include "switch_assisted/route_depth.hpp"
#include "switch_assisted/switch_status.hpp"

namespace cct::plugins::switch_assisted {

// Every rank sends its vector once and the switches combine them on the
// way, a level of the route tree after another: the root waits for the
// combined vector, streamed through them, and combines it with its own.
// Across the halves' subtrees: the upper half's combined vector, once.
cct_cost SwitchReduce::cost(const sdk::Comm& comm, const cct_coll_args& args,
                            std::span<const int64_t>) {
  const auto bytes = static_cast<double>(rooted_bytes(args, comm.size()));
  if (bytes == 0 || comm.size() < 2) return {};
  return sdk::flat_cost(comm, route_depth(comm.size()), bytes, bytes).cross(bytes);
}

SwitchReduce::SwitchReduce(const sdk::Comm& comm, std::span<const int64_t>) : comm_(comm) {}

void SwitchReduce::run(const cct_coll_args& args) {
  if (rooted_bytes(args, comm_.size()) == 0) return;
  cct_transport_instance* tr = comm_.transport();
  cct_error err{};
  check_switch_status(tr->aggregate->reduce(tr, input_of(args), args.recvbuf, args.count,
                                            args.dtype, args.op, args.root, &err),
                      "aggregate reduce", err);
}

}  // namespace cct::plugins::switch_assisted
