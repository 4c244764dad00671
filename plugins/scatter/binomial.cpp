#include "scatter/binomial.hpp"

#include <algorithm>
#include <cstring>

#include "common/rooted.hpp"

namespace cct::plugins::scatter {

// Each child gets its subtree's blocks as one message: ceil(log2 p) hops,
// behind the root's p - 1 blocks leaving one after another, which a root
// other than rank 0 first copies into virtual order (root_blocks). Across
// the halves: each upper-half block once, on the one edge where its path
// from rank 0 enters the upper half.
cct_cost Binomial::cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                        std::span<const int64_t>) {
  const std::size_t bytes = rooted_bytes(args, comm.size());
  if (bytes == 0 || comm.size() < 2) return {};
  const double others = (comm.size() - 1.0) * bytes;
  return root_blocks_cost(comm, binomial_depth(comm.size()), static_cast<double>(bytes))
      .copy(args.root != 0 ? others : 0);
}

Binomial::Binomial(const cct::sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm), sends_(binomial_depth(comm.size())) {}

void Binomial::run(const cct_coll_args& args) {
  const std::size_t bytes = rooted_bytes(args, comm_.size());
  if (bytes == 0) return;
  const int size = comm_.size();
  const int vrank = to_virtual(comm_.rank(), args.root, size);
  const int span = binomial_span(vrank, size);
  const int blocks = std::min(span, size - vrank);
  const int parent = to_real(vrank - span, args.root, size);
  if (vrank != 0 && blocks == 1) return comm_.recv(args.recvbuf, bytes, parent, args.tag);
  const std::byte* subtree =
      vrank == 0 ? root_blocks(args, bytes) : receive_subtree(args, blocks, bytes, parent);
  const std::size_t posted = send_children(args, subtree, vrank, bytes);
  keep_own(args, subtree, vrank, bytes);
  comm_.waitall(sends_.data(), posted);
}

// The root's blocks in virtual rank order (virtual v is rank (v + root) % p),
// where every subtree's blocks are contiguous. Root 0 has them so already;
// another root copies blocks 1..p-1 to the scratch buffer.
const std::byte* Binomial::root_blocks(const cct_coll_args& args, std::size_t bytes) {
  const auto* in = static_cast<const std::byte*>(args.sendbuf);
  if (args.root == 0) return in;
  const std::size_t root = args.root;
  const std::size_t up_to_end = comm_.size() - root;  // virtual 0.. are ranks root..p-1
  std::byte* blocks = scratch_.get(comm_.size() * bytes);
  std::memcpy(blocks + bytes, in + (root + 1) * bytes, (up_to_end - 1) * bytes);
  std::memcpy(blocks + up_to_end * bytes, in, root * bytes);
  return blocks;
}

// An inner rank gets its whole subtree's blocks, its own first.
const std::byte* Binomial::receive_subtree(const cct_coll_args& args, int blocks, std::size_t bytes,
                                           int parent) {
  std::byte* subtree = scratch_.get(blocks * bytes);
  comm_.recv(subtree, blocks * bytes, parent, args.tag);
  return subtree;
}

// Child vrank + m gets the blocks of its subtree, which lie at distance m
// from this rank's own block; the largest subtree leaves first.
std::size_t Binomial::send_children(const cct_coll_args& args, const std::byte* subtree, int vrank,
                                    std::size_t bytes) {
  const int size = comm_.size();
  std::size_t posted = 0;
  for (int m = binomial_span(vrank, size) / 2; m >= 1; m /= 2) {
    const int child = vrank + m;
    if (child >= size) continue;
    const std::size_t length = std::min(m, size - child) * bytes;
    comm_.isend(subtree + m * bytes, length, to_real(child, args.root, size), args.tag,
                sends_[posted++]);
  }
  return posted;
}

void Binomial::keep_own(const cct_coll_args& args, const std::byte* subtree, int vrank,
                        std::size_t bytes) const {
  if (vrank != 0) {
    std::memcpy(args.recvbuf, subtree, bytes);
  } else if (args.recvbuf != CCT_IN_PLACE) {
    const auto* in = static_cast<const std::byte*>(args.sendbuf);
    std::memcpy(args.recvbuf, in + args.root * bytes, bytes);
  }
}

}  // namespace cct::plugins::scatter
