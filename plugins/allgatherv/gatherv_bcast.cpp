#include "allgatherv/gatherv_bcast.hpp"

#include "common/args.hpp"
#include "common/rooted.hpp"

namespace cct::plugins::allgatherv {

// The gatherv: rank 0's receives all posted at once, one latency, the n - 1
// blocks arriving one after another; the bcast: ceil(log2 n) rounds of the
// whole packed result; then the others' blocks copied out of it. Across
// the halves: the upper half's blocks into rank 0, then the whole result on
// the tree's crossing edges.
cct_cost GathervBcast::cost(const sdk::Comm& comm, const cct_coll_args& a,
                            std::span<const int64_t>) {
  const int n = comm.size();
  if (n < 2) return {};
  const double block = a.count * elem_size(a);
  const double rounds = binomial_depth(n);
  return sdk::CostShape()
      .send(sdk::outer_span(comm), 1 + rounds, (n - 1) * block + rounds * n * block)
      .copy((n - 1) * block)
      .cross(cct::sdk::upper_half(n) * block + binomial_crossings(n) * n * block);
}

// n - 1 receives at rank 0 outnumber the binomial tree's children anywhere.
GathervBcast::GathervBcast(const sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm), requests_(static_cast<std::size_t>(comm.size() - 1)) {}

void GathervBcast::run(const cct_coll_args& a) {
  blocks_.assign(a.recvcounts, comm_.size(), elem_size(a));
  if (blocks_.total_bytes() == 0) return;
  std::byte* packed = packed_.get(blocks_.total_bytes());
  gather(a, packed);
  bcast(packed, a.tag);
  copy_out(a, packed);
}

// Every other rank sends its block to rank 0, which posts every receive at
// once; empty blocks are not sent at all.
void GathervBcast::gather(const cct_coll_args& a, std::byte* packed) {
  const int me = comm_.rank();
  const std::byte* mine = in_place(a) ? output_of(a) + a.rdispls[me] * elem_size(a) : input_of(a);
  if (me != 0) {
    if (blocks_.bytes(me) > 0) comm_.send(mine, blocks_.bytes(me), 0, a.tag);
    return;
  }
  std::size_t posted = 0;
  for (int r = 1; r < comm_.size(); ++r)
    if (blocks_.bytes(r) > 0)
      comm_.irecv(packed + blocks_.offset(r), blocks_.bytes(r), r, a.tag, requests_[posted++]);
  copy_bytes(packed, mine, blocks_.bytes(0));
  comm_.waitall(requests_.data(), posted);
}

// The binomial tree rooted at rank 0 (common/rooted.hpp).
void GathervBcast::bcast(std::byte* packed, uint32_t tag) {
  const int me = comm_.rank(), n = comm_.size();
  const std::size_t bytes = blocks_.total_bytes();
  const int span = binomial_span(me, n);
  if (me != 0) comm_.recv(packed, bytes, me - span, tag);
  std::size_t posted = 0;
  for (int m = span / 2; m >= 1; m /= 2)
    if (me + m < n) comm_.isend(packed, bytes, me + m, tag, requests_[posted++]);
  comm_.waitall(requests_.data(), posted);
}

// The own block is already in place, or comes straight from sendbuf.
void GathervBcast::copy_out(const cct_coll_args& a, const std::byte* packed) const {
  const std::size_t elem = elem_size(a);
  std::byte* out = output_of(a);
  for (int r = 0; r < comm_.size(); ++r)
    if (r != comm_.rank())
      copy_bytes(out + a.rdispls[r] * elem, packed + blocks_.offset(r), blocks_.bytes(r));
  if (!in_place(a))
    copy_bytes(out + a.rdispls[comm_.rank()] * elem, input_of(a), blocks_.bytes(comm_.rank()));
}

}  // namespace cct::plugins::allgatherv
