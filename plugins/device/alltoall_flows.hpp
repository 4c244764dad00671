// The alltoall of device memory that device_pairwise and device_pdbp both
// run, with one flow or many: the own block copied on the device, then the
// exchange with distance k (k = 1 .. n - 1) sends the block for rank + k
// while the one from rank - k arrives. `flows` exchanges are in flight at
// once, the next entering as the oldest completes, in the same order on
// every rank, so no cycle of waits can form. In place: the input is copied
// to device scratch first.
#pragma once

#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "cct/sdk/device.hpp"

namespace cct::plugins::device {

class AlltoallFlows {
 public:
  // The cost shape of a call with `flows` (>= 1) and staging `chunk`.
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a, int flows, int64_t chunk);
  // flows >= 1; more than the peers count as all of them.
  AlltoallFlows(const sdk::Comm& comm, int flows);
  void run(const cct_coll_args& a);

 private:
  sdk::Comm comm_;
  sdk::Device device_;
  sdk::DeviceScratch input_;
  int flows_;
  std::vector<cct_request> requests_;  // two per flow
};

}  // namespace cct::plugins::device
