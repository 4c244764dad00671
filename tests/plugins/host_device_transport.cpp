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
                               },
                               [] { return true; }};

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

// What a test program makes its buffers in this transport's device memory
// with, as a GPU program would with cudaMalloc, cudaFree and cudaMemcpy
// (tests/mpi/device_check.c loads this library for them): device memory
// is the process's, so the transport the runtime opens knows it. Copies
// are complete on return; kind is a cct_copy_kind. 0 on success.
namespace {

cct::device::HostBackend& program_backend() {
  static cct::device::HostBackend backend;
  return backend;
}

}  // namespace

extern "C" {

[[gnu::visibility("default")]] void* cct_test_device_alloc(size_t bytes) {
  try {
    return program_backend().alloc(bytes);
  } catch (const cct::device::Error&) {
    return nullptr;
  }
}

[[gnu::visibility("default")]] void cct_test_device_free(void* ptr) {
  program_backend().free(ptr);
}

[[gnu::visibility("default")]] int cct_test_device_copy(void* dst, const void* src, size_t bytes,
                                                        int kind) {
  try {
    cct::device::HostBackend& backend = program_backend();
    const cct::device::UniqueStream stream(backend);
    backend.copy(dst, src, bytes, static_cast<cct_copy_kind>(kind), stream.get());
    backend.synchronize(stream.get());
    return 0;
  } catch (const cct::device::Error&) {
    return 1;
  }
}

}  // extern "C"
