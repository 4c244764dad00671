#include "scatter/linear.hpp"

#include <cstring>

#include "common/rooted.hpp"

namespace cct::plugins::scatter {

// The root posts all p - 1 sends at once: one latency, and the blocks
// leave it one after another. Across the halves: the upper half's
// blocks, from root 0.
cct_cost Linear::cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                      std::span<const int64_t>) {
  const std::size_t bytes = rooted_bytes(args, comm.size());
  if (bytes == 0 || comm.size() < 2) return {};
  return root_blocks_cost(comm, 1, static_cast<double>(bytes));
}

Linear::Linear(const cct::sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm), sends_(comm.size() - 1) {}

void Linear::run(const cct_coll_args& args) {
  const std::size_t bytes = rooted_bytes(args, comm_.size());
  if (bytes == 0) return;
  if (comm_.rank() == args.root) return send_all(args, bytes);
  comm_.recv(args.recvbuf, bytes, args.root, args.tag);
}

void Linear::send_all(const cct_coll_args& args, std::size_t bytes) {
  const auto* in = static_cast<const std::byte*>(args.sendbuf);
  std::size_t posted = 0;
  for (int r = 0; r < comm_.size(); ++r) {
    if (r != args.root) comm_.isend(in + r * bytes, bytes, r, args.tag, sends_[posted++]);
  }
  if (args.recvbuf != CCT_IN_PLACE) std::memcpy(args.recvbuf, in + args.root * bytes, bytes);
  comm_.waitall(sends_.data(), posted);
}

}  // namespace cct::plugins::scatter
