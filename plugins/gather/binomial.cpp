#include "gather/binomial.hpp"

#include <algorithm>
#include <cstring>

#include "common/rooted.hpp"

namespace cct::plugins::gather {

// Each subtree's blocks go up as one message: ceil(log2 p) hops, the last
// of which bring the root all p - 1 blocks one after another. After them
// the root copies its own block, and the others too when it is not rank 0
// (unrotate). Across the halves: each upper-half block once, on the one
// edge where its climb to rank 0 leaves the upper half.
cct_cost Binomial::cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                        std::span<const int64_t>) {
  const std::size_t bytes = rooted_bytes(args, comm.size());
  if (bytes == 0 || comm.size() < 2) return {};
  const double others = (comm.size() - 1.0) * bytes;
  return root_blocks_cost(comm, binomial_depth(comm.size()), static_cast<double>(bytes))
      .copy(static_cast<double>(bytes) + (args.root != 0 ? others : 0));
}

Binomial::Binomial(const cct::sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm), receives_(binomial_depth(comm.size())) {}

void Binomial::run(const cct_coll_args& args) {
  const std::size_t bytes = rooted_bytes(args, comm_.size());
  if (bytes == 0) return;
  const int size = comm_.size();
  const int vrank = to_virtual(comm_.rank(), args.root, size);
  const int span = binomial_span(vrank, size);
  const int blocks = std::min(span, size - vrank);
  const int parent = to_real(vrank - span, args.root, size);
  if (vrank != 0 && blocks == 1) return comm_.send(args.sendbuf, bytes, parent, args.tag);
  std::byte* subtree = assembly(args, vrank, blocks, bytes);
  receive_children(args, subtree, vrank, bytes);
  if (vrank != 0) return comm_.send(subtree, blocks * bytes, parent, args.tag);
  if (args.sendbuf != CCT_IN_PLACE)
    std::memcpy(static_cast<std::byte*>(args.recvbuf) + args.root * bytes, args.sendbuf, bytes);
  if (args.root != 0) unrotate(args, subtree, bytes);
}

// Where this rank assembles its subtree's blocks, in virtual rank order,
// with its own block first. Root 0 assembles in recvbuf itself, where
// virtual and real order agree; every other rank in the scratch buffer.
std::byte* Binomial::assembly(const cct_coll_args& args, int vrank, int blocks, std::size_t bytes) {
  if (vrank == 0 && args.root == 0) return static_cast<std::byte*>(args.recvbuf);
  std::byte* subtree = scratch_.get(blocks * bytes);
  if (vrank != 0) std::memcpy(subtree, args.sendbuf, bytes);
  return subtree;
}

// Child vrank + m sends the blocks of its subtree, which follow this rank's
// block at distance m.
void Binomial::receive_children(const cct_coll_args& args, std::byte* subtree, int vrank,
                                std::size_t bytes) {
  const int size = comm_.size();
  const int span = binomial_span(vrank, size);
  std::size_t posted = 0;
  for (int m = 1; m < span && vrank + m < size; m *= 2) {
    const int child = vrank + m;
    const std::size_t length = std::min(m, size - child) * bytes;
    comm_.irecv(subtree + m * bytes, length, to_real(child, args.root, size), args.tag,
                receives_[posted++]);
  }
  comm_.waitall(receives_.data(), posted);
}

// The root's blocks 1..p-1 in virtual order to their real places: virtual v
// belongs to rank (v + root) % p.
void Binomial::unrotate(const cct_coll_args& args, const std::byte* subtree,
                        std::size_t bytes) const {
  auto* out = static_cast<std::byte*>(args.recvbuf);
  const std::size_t root = args.root;
  const std::size_t up_to_end = comm_.size() - root;  // virtual 0.. map to root..p-1
  std::memcpy(out + (root + 1) * bytes, subtree + bytes, (up_to_end - 1) * bytes);
  std::memcpy(out, subtree + up_to_end * bytes, root * bytes);
}

}  // namespace cct::plugins::gather
