#include "switch_assisted/switch_reduce.hpp"

#include "common/rooted.hpp"
#include "switch_assisted/switch_status.hpp"

namespace cct::plugins::switch_assisted {

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
