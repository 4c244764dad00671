#include "gatherv/binomial.hpp"

#include "common/args.hpp"
#include "common/rooted.hpp"

namespace cct::plugins::gatherv {

// The data climbs ceil(log2 p) hops, the last bringing the root all p - 1
// blocks one after another; from p = 4 on, the counts climb a hop ahead of
// it (a rank takes its children's data once it has their counts), which
// adds the first counts message. The root then unpacks every block.
// Across the halves: each upper-half block once, where its climb to rank 0
// leaves the upper half (the few counts that go along are left out).
cct_cost Binomial::cost(const sdk::Comm& comm, const cct_coll_args& a, std::span<const int64_t>) {
  const int size = comm.size();
  check_root(a.root, size);
  if (size < 2) return {};
  const double bytes = static_cast<double>(a.count * elem_size(a));
  const bool counts_hop = size > 3;
  return sdk::CostShape()
      .send(sdk::outer_span(comm), binomial_depth(size) + counts_hop,
            (size - 1) * bytes + (counts_hop ? SubtreeCounts::counts_bytes(1) : 0))
      .copy(size * bytes)
      .cross(cct::sdk::upper_half(size) * bytes);
}

Binomial::Binomial(const sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm), subtree_(comm.size()), receives_(binomial_depth(comm.size())) {}

void Binomial::run(const cct_coll_args& a) {
  check_root(a.root, comm_.size());
  const std::size_t elem = elem_size(a);
  const int vrank = to_virtual(comm_.rank(), a.root, comm_.size());
  if (vrank == 0) return gather_at_root(a, elem);
  gather_subtree(a, vrank, elem);
}

// The others' blocks arrive packed in virtual rank order and go to their
// displacements; the root's own block is copied there unless in place.
void Binomial::gather_at_root(const cct_coll_args& a, std::size_t elem) {
  const int size = comm_.size();
  subtree_.of_tree(a.recvcounts, a.root, size, elem);
  const CountedBlocks& packed = subtree_.packed();
  std::byte* data = packed_.get(packed.total_bytes());
  receive_data(a, data, 0, size);
  std::byte* out = output_of(a);
  if (!in_place(a))
    copy_bytes(out + a.rdispls[a.root] * elem, input_of(a), a.recvcounts[a.root] * elem);
  for (int v = 1; v < size; ++v)
    copy_bytes(out + a.rdispls[to_real(v, a.root, size)] * elem, data + packed.offset(v),
               packed.bytes(v));
}

// Counts from the children, the subtree's counts to the parent (unless it
// is the root), then the data: the own block first, the children's after.
void Binomial::gather_subtree(const cct_coll_args& a, int vrank, std::size_t elem) {
  const int size = comm_.size();
  const int blocks = subtree_blocks(vrank, size);
  const int parent_v = vrank - binomial_span(vrank, size);
  const int parent = to_real(parent_v, a.root, size);
  *subtree_.counts() = a.count;
  receive_counts(a, vrank, blocks);
  if (parent_v != 0)
    comm_.send(subtree_.counts(), SubtreeCounts::counts_bytes(blocks), parent, a.tag);
  if (blocks == 1) return comm_.send(a.sendbuf, a.count * elem, parent, a.tag);
  subtree_.lay_out(blocks, elem);
  std::byte* data = packed_.get(subtree_.packed().total_bytes());
  copy_bytes(data, static_cast<const std::byte*>(a.sendbuf), a.count * elem);
  receive_data(a, data, vrank, blocks);
  comm_.send(data, subtree_.packed().total_bytes(), parent, a.tag);
}

// Child vrank + m's subtree counts land at m: the subtree is numbered from
// this rank on.
void Binomial::receive_counts(const cct_coll_args& a, int vrank, int blocks) {
  const int size = comm_.size();
  std::size_t posted = 0;
  for (int m = 1; m < blocks; m *= 2)
    comm_.irecv(subtree_.counts(m), SubtreeCounts::counts_bytes(subtree_blocks(vrank + m, size)),
                to_real(vrank + m, a.root, size), a.tag, receives_[posted++]);
  comm_.waitall(receives_.data(), posted);
}

void Binomial::receive_data(const cct_coll_args& a, std::byte* packed, int vrank, int blocks) {
  const int size = comm_.size();
  const CountedBlocks& layout = subtree_.packed();
  std::size_t posted = 0;
  for (int m = 1; m < blocks; m *= 2)
    comm_.irecv(packed + layout.offset(m), layout.bytes(m, subtree_blocks(vrank + m, size)),
                to_real(vrank + m, a.root, size), a.tag, receives_[posted++]);
  comm_.waitall(receives_.data(), posted);
}

}  // namespace cct::plugins::gatherv
