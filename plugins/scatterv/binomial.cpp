#include "scatterv/binomial.hpp"

#include "common/args.hpp"
#include "common/rooted.hpp"

namespace cct::plugins::scatterv {

// The root packs the p - 1 blocks, then each child gets its subtree's
// counts and blocks together: ceil(log2 p) hops, behind the root's p - 1
// blocks (and about as many counts) leaving one after another. Across the
// halves: each upper-half block once, where its path from rank 0 enters the
// upper half (the few counts that go along are left out).
cct_cost Binomial::cost(const sdk::Comm& comm, const cct_coll_args& a, std::span<const int64_t>) {
  const int size = comm.size();
  check_root(a.root, size);
  if (size < 2) return {};
  const auto bytes = static_cast<double>(a.count * elem_size(a));
  const double others = (size - 1.0) * bytes;
  return sdk::CostShape()
      .send(sdk::outer_span(comm), binomial_depth(size),
            others + SubtreeCounts::counts_bytes(size - 1))
      .copy(others)
      .cross(cct::sdk::upper_half(size) * bytes);
}

Binomial::Binomial(const sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm), subtree_(comm.size()), sends_(2 * binomial_depth(comm.size())) {}

void Binomial::run(const cct_coll_args& a) {
  check_root(a.root, comm_.size());
  const std::size_t elem = elem_size(a);
  const int vrank = to_virtual(comm_.rank(), a.root, comm_.size());
  if (vrank == 0) return scatter_from_root(a, elem);
  scatter_subtree(a, vrank, elem);
}

// The others' blocks packed in virtual rank order from their displacements;
// the root's own block copied out unless in place.
void Binomial::scatter_from_root(const cct_coll_args& a, std::size_t elem) {
  const int size = comm_.size();
  subtree_.of_tree(a.sendcounts, a.root, size, elem);
  const CountedBlocks& packed = subtree_.packed();
  std::byte* data = packed_.get(packed.total_bytes());
  const auto* in = static_cast<const std::byte*>(a.sendbuf);
  for (int v = 1; v < size; ++v)
    copy_bytes(data + packed.offset(v), in + a.sdispls[to_real(v, a.root, size)] * elem,
               packed.bytes(v));
  const std::size_t posted = send_children(a, data, 0, size);
  if (a.recvbuf != CCT_IN_PLACE)
    copy_bytes(output_of(a), in + a.sdispls[a.root] * elem, a.sendcounts[a.root] * elem);
  comm_.waitall(sends_.data(), posted);
}

// A leaf receives its block; an inner rank its subtree's counts, then its
// subtree's blocks, its own first.
void Binomial::scatter_subtree(const cct_coll_args& a, int vrank, std::size_t elem) {
  const int size = comm_.size();
  const int blocks = subtree_blocks(vrank, size);
  const int parent = to_real(vrank - binomial_span(vrank, size), a.root, size);
  if (blocks == 1) return comm_.recv(a.recvbuf, a.count * elem, parent, a.tag);
  comm_.recv(subtree_.counts(), SubtreeCounts::counts_bytes(blocks), parent, a.tag);
  subtree_.lay_out(blocks, elem);
  std::byte* data = packed_.get(subtree_.packed().total_bytes());
  comm_.recv(data, subtree_.packed().total_bytes(), parent, a.tag);
  const std::size_t posted = send_children(a, data, vrank, blocks);
  copy_bytes(output_of(a), data, a.count * elem);
  comm_.waitall(sends_.data(), posted);
}

// Child vrank + m's counts and blocks lie at m of the subtree; the largest
// subtree leaves first; a leaf knows its count and gets no counts. Returns
// the sends posted.
std::size_t Binomial::send_children(const cct_coll_args& a, const std::byte* packed, int vrank,
                                    int blocks) {
  const int size = comm_.size();
  const CountedBlocks& layout = subtree_.packed();
  std::size_t posted = 0;
  for (int m = binomial_span(vrank, size) / 2; m >= 1; m /= 2) {
    if (m >= blocks) continue;
    const int child = vrank + m, child_blocks = subtree_blocks(child, size);
    const int peer = to_real(child, a.root, size);
    if (child_blocks > 1)
      comm_.isend(subtree_.counts(m), SubtreeCounts::counts_bytes(child_blocks), peer, a.tag,
                  sends_[posted++]);
    comm_.isend(packed + layout.offset(m), layout.bytes(m, child_blocks), peer, a.tag,
                sends_[posted++]);
  }
  return posted;
}

}  // namespace cct::plugins::scatterv
