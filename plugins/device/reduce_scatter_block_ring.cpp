#include "device/reduce_scatter_block_ring.hpp"

#include "common/args.hpp"
#include "device/ring_steps.hpp"

namespace cct::plugins::device {

// The input copied into scratch, n - 1 ring steps of one block each,
// staged, each reducing its block, and the own block copied out. Across
// the halves: two blocks a step (the ring crosses them at two places).
cct_cost ReduceScatterBlockRing::cost(const sdk::Comm& comm, const cct_coll_args& a,
                                      std::span<const int64_t> params) {
  const StagingChunk chunk(params[0]);
  if (a.count == 0 || comm.size() < 2) return {};
  const std::size_t bytes = a.count * elem_size(a);
  const double steps = comm.size() - 1.0;
  return staged_cost(comm, steps, bytes, chunk.bytes())
      .reduce(steps * static_cast<double>(bytes))
      .copy(static_cast<double>((comm.size() + 1) * bytes))
      .cross(steps * sdk::shift_crossing(comm.size(), 1) * static_cast<double>(bytes));
}

ReduceScatterBlockRing::ReduceScatterBlockRing(const sdk::Comm& comm,
                                               std::span<const int64_t> params)
    : comm_(comm), chunk_(params[0]), device_(comm), acc_(device_), tmp_(device_) {}

void ReduceScatterBlockRing::run(const cct_coll_args& a) {
  chunk_.apply(comm_);
  if (a.count == 0) return;
  const std::size_t bytes = a.count * elem_size(a);
  const int n = comm_.size();
  const Blocks blocks(a.count * n, n, elem_size(a));  // n blocks of count elements
  std::byte* acc = acc_.get(n * bytes);
  device_.copy(acc, input_of(a), n * bytes, CCT_COPY_DEVICE_TO_DEVICE);
  device_.synchronize();
  ring_reduce_scatter(comm_, device_, blocks, acc, tmp_.get(bytes), a, 0);
  device_.copy(output_of(a), acc + blocks.offset(comm_.rank()), bytes, CCT_COPY_DEVICE_TO_DEVICE);
  device_.synchronize();
}

}  // namespace cct::plugins::device
