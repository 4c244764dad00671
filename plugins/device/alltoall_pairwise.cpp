#include "device/alltoall_pairwise.hpp"

#include "common/args.hpp"

namespace cct::plugins::device {

AlltoallPairwise::AlltoallPairwise(const sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm), chunk_(params[0]), device_(comm), input_(device_) {}

void AlltoallPairwise::run(const cct_coll_args& a) {
  chunk_.apply(comm_);
  const std::size_t bytes = a.count * elem_size(a);
  if (bytes == 0) return;
  const int n = comm_.size(), me = comm_.rank();
  std::byte* recv = output_of(a);
  const std::byte* send = input_of(a);
  if (in_place(a)) {
    std::byte* copy = input_.get(n * bytes);
    device_.copy(copy, recv, n * bytes, CCT_COPY_DEVICE_TO_DEVICE);
    send = copy;
  }
  device_.copy(recv + me * bytes, send + me * bytes, bytes, CCT_COPY_DEVICE_TO_DEVICE);
  device_.synchronize();
  for (int k = 1; k < n; ++k) {
    const int to = (me + k) % n, from = (me - k + n) % n;
    comm_.sendrecv(send + to * bytes, bytes, to, recv + from * bytes, bytes, from, a.tag);
  }
}

}  // namespace cct::plugins::device
