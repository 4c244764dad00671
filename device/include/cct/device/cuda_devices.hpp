// The CUDA devices this process sees, and why there are none.
//
// Collectives on buffers in device memory depend on what a node offers,
// and a user needs to see it first (ccinfo), as the CUDA transport does
// before it opens: the devices, which pairs can reach each other's memory
// directly (peer access, what CUDA IPC copies between ranks on one GPU or
// between GPUs rely on), and, where there are none, why. Built in two
// forms (device/CMakeLists.txt): with a CUDA toolkit, the runtime API
// linked statically (cuda_devices.cpp), so that a program still starts
// where no CUDA library is installed; without one, a report that says so
// (cuda_devices_absent.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cct::device {

struct CudaDevice {
  int index = 0;
  std::string name;
  std::string pci_bus_id;  // e.g. 0000:17:00.0
  int compute_major = 0, compute_minor = 0;
  std::size_t memory_bytes = 0;
  std::vector<int> peers;  // the devices whose memory this one can access directly
};

struct CudaDevices {
  // Empty when there are devices; else why there are none: "not built
  // with CUDA ...", "no CUDA driver (...)", "no device (...)".
  std::string absent;
  std::string runtime_version;  // of the toolkit built against; empty when not built
  std::string driver_version;   // the driver's CUDA version; empty without a driver
  std::vector<CudaDevice> devices;
};

// Initialises CUDA in this process (see below).
CudaDevices cuda_devices();

// Why there is no CUDA device here, judged without initialising CUDA, from
// what the NVIDIA kernel driver shows in /proc ("no CUDA driver (...)",
// "no device (...)"), or "" when there is a driver and a GPU: a process
// that will fork ranks must not have initialised CUDA (a forked child
// cannot use its parent's CUDA state), and transports are probed in such
// processes (ccautotune, before it launches the ranks). The verdict can be
// wrong where the driver shows no /proc entries (WSL); then cuda_devices()
// decides, in the rank.
std::string cuda_absent_before_init();

// Whether this process has loaded CUDA's driver library (libcuda.so): until
// it has, nothing in it allocated device memory (lazy_backend.hpp). Cheap
// enough to ask per call: the loaded libraries are looked through again
// only when one was added since.
bool cuda_driver_loaded();

}  // namespace cct::device
