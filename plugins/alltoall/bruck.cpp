#include "alltoall/bruck.hpp"

#include "common/args.hpp"

namespace cct::plugins::alltoall {
namespace {

// Calls f(i, j) for each index i < n with bit k set, j counting them from 0
// (there are at most n / 2); returns how many there were.
template <class F>
int for_each_with_bit(int n, int k, F&& f) {
  int j = 0;
  for (int i = k; i < n; ++i)
    if (i & k) f(i, j++);
  return j;
}

}  // namespace

// ceil(log2 n) steps, step k packing the blocks whose index has bit k set;
// each packed block is copied in and out of the packing buffers, and the
// two rotations copy every block once more each. A step's packed blocks
// cross the halves on the sends to rank + k that do, so a block may cross
// more than once on its way.
cct_cost Bruck::cost(const sdk::Comm& comm, const cct_coll_args& a, std::span<const int64_t>) {
  const int n = comm.size();
  int packed = 0;
  double crossing = 0;
  for (int k = 1; k < n; k *= 2) {
    const int m = for_each_with_bit(n, k, [](int, int) {});
    packed += m;
    crossing += sdk::shift_crossing(n, k) * m;
  }
  const double block = a.count * elem_size(a);
  return sdk::CostShape()
      .send(sdk::outer_span(comm), sdk::steps_to_reach(n, 2), packed * block)
      .copy(2 * (n + packed) * block)
      .cross(crossing * block);
}

Bruck::Bruck(const sdk::Comm& comm, std::span<const int64_t>) : comm_(comm) {}

// work[i] starts as the block for rank + i. A block that must travel i ranks
// moves at the steps of the bits of i, staying at index i, so at the end
// work[i] is the block from rank - i.
void Bruck::run(const cct_coll_args& a) {
  if (a.count == 0) return;
  const int n = comm_.size(), rank = comm_.rank();
  const std::size_t block = a.count * elem_size(a);
  const std::size_t half = n / 2 * block;
  std::byte* work = scratch_.get(n * block + 2 * half);
  std::byte* send = work + n * block;
  std::byte* recv = send + half;
  const std::byte* in = input_of(a);
  copy_bytes(work, in + rank * block, (n - rank) * block);
  copy_bytes(work + (n - rank) * block, in, rank * block);
  for (int k = 1; k < n; k *= 2) {
    const int m = for_each_with_bit(
        n, k, [&](int i, int j) { copy_bytes(send + j * block, work + i * block, block); });
    comm_.sendrecv(send, m * block, (rank + k) % n, recv, m * block, (rank - k + n) % n, a.tag);
    for_each_with_bit(n, k,
                      [&](int i, int j) { copy_bytes(work + i * block, recv + j * block, block); });
  }
  std::byte* out = output_of(a);
  for (int i = 0; i < n; ++i) copy_bytes(out + (rank - i + n) % n * block, work + i * block, block);
}

}  // namespace cct::plugins::alltoall
