// host_device: the device transport (transports/cuda/device_transport.hpp)
// on host memory posing as a device (cct/device/host_backend.hpp), so that
// what runs on device buffers (the runtime's path, algorithms, the tuner)
// is tested where there is no GPU. Its device pointers fault when the host
// touches them, as a GPU's do. A test plugin: never installed, never
// searched by default.
#include "cct/abi/export.h"
#include "cct/device/host_backend.hpp"
#include "device_transport.hpp"

namespace {

using cct::cuda::DeviceFlavor;

const DeviceFlavor kHostDevice{[] { return std::string(); },
                               [](int) -> std::unique_ptr<cct::device::Backend> {
                                 return std::make_unique<cct::device::HostBackend>();
                               }};

cct_status host_device_probe(const cct_bootstrap* boot, cct_error* err) {
  return cct::cuda::probe(kHostDevice, boot, err);
}

cct_status host_device_open(const cct_bootstrap* boot, cct_transport_instance** out,
                            cct_error* err) {
  return cct::cuda::open(kHostDevice, boot, out, err);
}

const cct_transport_desc kDesc = {
    sizeof(cct_transport_desc),
    CCT_ABI_VERSION,
    "host_device",
    "test only: the cuda transport's code on host memory posing as a device",
    CCT_CAP_P2P | CCT_CAP_DEVICE,
    {0, 0},
    host_device_probe,
    host_device_open,
    cct::cuda::close,
};

}  // namespace

CCT_EXPORT_TRANSPORT(kDesc);
