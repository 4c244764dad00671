#include "gather/linear.hpp"

#include <cstring>

#include "common/rooted.hpp"

namespace cct::plugins::gather {

// The root has all p - 1 receives posted at once: one latency, and the
// blocks reach it one after another. Across the halves: the upper half's
// blocks, to root 0.
cct_cost Linear::cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                      std::span<const int64_t>) {
  const std::size_t bytes = rooted_bytes(args, comm.size());
  if (bytes == 0 || comm.size() < 2) return {};
  return root_blocks_cost(comm, 1, static_cast<double>(bytes));
}

Linear::Linear(const cct::sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm), receives_(comm.size() - 1) {}

void Linear::run(const cct_coll_args& args) {
  const std::size_t bytes = rooted_bytes(args, comm_.size());
  if (bytes == 0) return;
  if (comm_.rank() == args.root) return receive_all(args, bytes);
  comm_.send(args.sendbuf, bytes, args.root, args.tag);
}

void Linear::receive_all(const cct_coll_args& args, std::size_t bytes) {
  auto* out = static_cast<std::byte*>(args.recvbuf);
  std::size_t posted = 0;
  for (int r = 0; r < comm_.size(); ++r) {
    if (r != args.root) comm_.irecv(out + r * bytes, bytes, r, args.tag, receives_[posted++]);
  }
  if (args.sendbuf != CCT_IN_PLACE) std::memcpy(out + args.root * bytes, args.sendbuf, bytes);
  comm_.waitall(receives_.data(), posted);
}

}  // namespace cct::plugins::gather
