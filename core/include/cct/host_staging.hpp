// The staged form of any host algorithm: a call whose buffers are in
// device memory, on an algorithm that takes host memory only, runs on host
// copies of them, made through a device transport's copies
// (cct_device_ops).
//
// The ranks choose an algorithm from what every rank passes alike, never
// from memory kinds, which may differ between ranks (one rank's buffers on
// its GPU, another's in host memory). So a rank whose buffers are in device
// memory must still run the algorithm every rank chose: it copies its
// buffers to host scratch, runs the call there, and copies the results
// back. Correct whatever the other ranks pass, at the cost of the copies;
// what a device algorithm does instead is the cuda transport's business.
#pragma once

#include <cstddef>
#include <vector>

#include "cct/abi/algorithm.h"

namespace cct {

class HostStaging {
 public:
  // The call on host scratch: every device buffer's extent (this rank's,
  // cct::CollectiveInfo::extent) copied to the host, the receive side too,
  // which in-place calls read and whose gaps a call leaves as they were.
  // Throws cct::Error (CCT_ERR_TRANSPORT) naming the copy that failed.
  cct_coll_args stage(const cct_coll_args& args, int rank, int size,
                      cct_transport_instance* device);
  // After the staged call ran: the receive side's results back into device
  // memory.
  void unstage(cct_transport_instance* device);

 private:
  std::vector<unsigned char> send_, recv_;  // grow, never shrink
  void* device_recv_ = nullptr;             // where unstage() copies recv_ to
  std::size_t recv_bytes_ = 0;
};

}  // namespace cct
