#include "switch_assisted/switch_bcast.hpp"

#include "common/rooted.hpp"
#include "switch_assisted/switch_status.hpp"

namespace cct::plugins::switch_assisted {

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
