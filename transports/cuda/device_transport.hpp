// A transport for buffers in device memory, staged through the host
// transport under it, whatever backend moves the memory: the cuda
// transport (plugin.cpp: CUDA's backend) and, in the tests, host_device
// (tests/plugins: host memory posing as a device, so that what runs on
// device buffers is tested where there is no GPU) are both this code.
#pragma once

#include <memory>
#include <string>

#include "cct/abi/transport.h"
#include "cct/device/backend.hpp"

namespace cct::cuda {

// What tells one device transport from another.
struct DeviceFlavor {
  // Why this backend cannot serve here, judged without initialising it (a
  // probe may run in a process that forks ranks afterwards); "" where it
  // can.
  std::string (*absent)();
  // Opens the backend on `device` (device::kCurrentDevice: the calling
  // thread's current one); throws device::Error. Called when the transport
  // first needs it (device::LazyBackend), not when it opens.
  std::unique_ptr<device::Backend> (*open)(int device);
  // Whether the process may hold device memory yet, judged without
  // opening the backend (CUDA: its driver library is loaded).
  bool (*in_use)();
};

// The descriptor's functions, for a flavor.
cct_status probe(const DeviceFlavor& flavor, const cct_bootstrap* boot, cct_error* err);
cct_status open(const DeviceFlavor& flavor, const cct_bootstrap* boot, cct_transport_instance** out,
                cct_error* err);
void close(cct_transport_instance* self);

}  // namespace cct::cuda
