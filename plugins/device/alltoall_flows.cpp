#include "device/alltoall_flows.hpp"

#include <algorithm>

#include "common/args.hpp"
#include "device/staging_chunk.hpp"

namespace cct::plugins::device {

// The own block copied into place (the whole input first, in place), then
// the n - 1 exchanges in waves of `flows`: a wave's staged messages overlap
// their chunks' latencies, but all their bytes leave this rank one after
// another. Across the halves: exchange k's blocks that cross them, every
// rank's to its other half.
cct_cost AlltoallFlows::cost(const sdk::Comm& comm, const cct_coll_args& a, int flows,
                             int64_t chunk) {
  const std::size_t bytes = a.count * elem_size(a);
  const int n = comm.size();
  if (bytes == 0 || n < 2) return {};
  const int peers = n - 1, in_flight = std::clamp(flows, 1, peers);
  const double waves = (peers + in_flight - 1) / in_flight;
  double crossings = 0;
  for (int k = 1; k < n; ++k) crossings += sdk::shift_crossing(n, k);
  return staged_cost(comm, waves, bytes, chunk)
      .send(sdk::outer_span(comm), 0, (peers - waves) * static_cast<double>(bytes))
      .copy(static_cast<double>((in_place(a) ? n + 1 : 1) * bytes))
      .cross(crossings * static_cast<double>(bytes));
}

AlltoallFlows::AlltoallFlows(const sdk::Comm& comm, int flows)
    : comm_(comm),
      device_(comm),
      input_(device_),
      flows_(std::clamp(flows, 1, std::max(comm.size() - 1, 1))),
      requests_(2 * static_cast<std::size_t>(flows_)) {}

void AlltoallFlows::run(const cct_coll_args& a) {
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
  // Exchange k uses the requests of flow (k - 1) % flows_.
  const auto post = [&](int k) {
    cct_request* flow = &requests_[2 * ((k - 1) % flows_)];
    const int to = (me + k) % n, from = (me - k + n) % n;
    comm_.irecv(recv + from * bytes, bytes, from, a.tag, flow[0]);
    comm_.isend(send + to * bytes, bytes, to, a.tag, flow[1]);
  };
  for (int k = 1; k < n && k <= flows_; ++k) post(k);
  for (int k = 1; k < n; ++k) {
    comm_.waitall(&requests_[2 * ((k - 1) % flows_)], 2);
    if (k + flows_ < n) post(k + flows_);
  }
}

}  // namespace cct::plugins::device
