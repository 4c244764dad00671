#include "device/allgather_ring.hpp"

#include "common/args.hpp"

namespace cct::plugins::device {

// The own block copied into place, then n - 1 ring steps of one block
// each, staged, one after another. Across the halves: two blocks a step
// (the ring crosses them at two places).
cct_cost AllgatherRing::cost(const sdk::Comm& comm, const cct_coll_args& a,
                             std::span<const int64_t> params) {
  const StagingChunk chunk(params[0]);
  const std::size_t bytes = a.count * elem_size(a);
  if (bytes == 0 || comm.size() < 2) return {};
  return staged_cost(comm, comm.size() - 1.0, bytes, chunk.bytes())
      .copy(in_place(a) ? 0 : static_cast<double>(bytes))
      .cross((comm.size() - 1.0) * sdk::shift_crossing(comm.size(), 1) *
             static_cast<double>(bytes));
}

AllgatherRing::AllgatherRing(const sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm), chunk_(params[0]), device_(comm) {}

void AllgatherRing::run(const cct_coll_args& a) {
  chunk_.apply(comm_);
  const std::size_t bytes = a.count * elem_size(a);
  if (bytes == 0) return;
  const int n = comm_.size(), me = comm_.rank();
  std::byte* recv = output_of(a);
  if (!in_place(a)) {
    device_.copy(recv + me * bytes, a.sendbuf, bytes, CCT_COPY_DEVICE_TO_DEVICE);
    device_.synchronize();
  }
  // Step s sends block me - s and receives block me - s - 1.
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  for (int s = 0; s < n - 1; ++s) {
    const int out = (me - s + n) % n, in = (me - s - 1 + n) % n;
    comm_.sendrecv(recv + out * bytes, bytes, right, recv + in * bytes, bytes, left, a.tag);
  }
}

}  // namespace cct::plugins::device
