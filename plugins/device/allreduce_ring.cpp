#include "device/allreduce_ring.hpp"

#include "common/args.hpp"
#include "device/ring_steps.hpp"

namespace cct::plugins::device {

// The vector copied into place, then 2 (n - 1) ring steps of one block each,
// staged, one after another; each reduce-scatter step reduces its block.
// Across the halves: two blocks a step (the ring crosses them at two
// places).
cct_cost AllreduceRing::cost(const sdk::Comm& comm, const cct_coll_args& a,
                             std::span<const int64_t> params) {
  const StagingChunk chunk(params[0]);
  if (a.count == 0 || comm.size() < 2) return {};
  const Blocks blocks(a.count, comm.size(), elem_size(a));
  const double steps = comm.size() - 1.0;
  return staged_cost(comm, 2 * steps, blocks.bytes(0), chunk.bytes())
      .reduce(steps * static_cast<double>(blocks.bytes(0)))
      .copy(sdk::bytes_of(a, a.count))
      .cross(2 * steps * sdk::shift_crossing(comm.size(), 1) *
             static_cast<double>(blocks.bytes(0)));
}

AllreduceRing::AllreduceRing(const sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm), chunk_(params[0]), device_(comm), tmp_(device_) {}

void AllreduceRing::run(const cct_coll_args& a) {
  chunk_.apply(comm_);
  if (a.count == 0) return;
  const std::size_t elem = elem_size(a);
  const int n = comm_.size();
  const Blocks blocks(a.count, n, elem);
  std::byte* acc = output_of(a);
  device_.copy(acc, input_of(a), a.count * elem, CCT_COPY_DEVICE_TO_DEVICE);
  device_.synchronize();
  // first = 1: this rank ends holding block rank + 1, as the allgather
  // below expects.
  ring_reduce_scatter(comm_, device_, blocks, acc, tmp_.get(blocks.bytes(0)), a, 1);
  // Step s passes the finished block rank + 1 - s to the right and
  // receives block rank - s, in place, from the left.
  const int right = (comm_.rank() + 1) % n, left = (comm_.rank() + n - 1) % n;
  const auto block = [&](int shift) { return ((comm_.rank() + shift) % n + n) % n; };
  for (int s = 0; s < n - 1; ++s) {
    const int out = block(1 - s), in = block(-s);
    comm_.sendrecv(acc + blocks.offset(out), blocks.bytes(out), right, acc + blocks.offset(in),
                   blocks.bytes(in), left, a.tag);
  }
}

}  // namespace cct::plugins::device
