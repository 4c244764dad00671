// The cuda transport: the device transport (device_transport.hpp) on
// CUDA's backend.
#include "cct/abi/export.h"
#include "cct/device/cuda_backend.hpp"
#include "cct/device/cuda_devices.hpp"
#include "device_transport.hpp"

namespace cct::cuda {
namespace {

const DeviceFlavor kCuda{device::cuda_absent_before_init, device::open_cuda_backend,
                         device::cuda_driver_loaded};

cct_status cuda_probe(const cct_bootstrap* boot, cct_error* err) {
  return probe(kCuda, boot, err);
}

cct_status cuda_open(const cct_bootstrap* boot, cct_transport_instance** out, cct_error* err) {
  return open(kCuda, boot, out, err);
}

const cct_transport_desc kDesc = {
    sizeof(cct_transport_desc),
    CCT_ABI_VERSION,
    "cuda",
    "CUDA device memory: p2p on device or host buffers, staged through pinned host memory in "
    "overlapping chunks over the transport under it (shm, mpi); device copies and reductions",
    CCT_CAP_P2P | CCT_CAP_DEVICE,
    {0, 0},
    cuda_probe,
    cuda_open,
    close,
};

}  // namespace
}  // namespace cct::cuda

CCT_EXPORT_TRANSPORT(cct::cuda::kDesc);
