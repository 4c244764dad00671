// The CUDA devices through CUDA's runtime API (cuda_devices.hpp).
#include "cct/device/cuda_devices.hpp"

#include <cuda_runtime_api.h>
#include <link.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

namespace cct::device {
namespace {

// "12.4" from CUDA's 12040.
std::string version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

// Why cudaGetDeviceCount found nothing: the driver is missing or too old
// (every machine without an NVIDIA driver), or it has no device.
std::string why_none(cudaError_t e) {
  const std::string said = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
  switch (e) {
    case cudaErrorNoDevice: return "no device (" + said + ")";
    case cudaErrorInsufficientDriver:
    case cudaErrorInitializationError: return "no CUDA driver (" + said + ")";
    default: return "no usable device (" + said + ")";
  }
}

CudaDevice device(int index, int count) {
  CudaDevice d{.index = index};
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, index) == cudaSuccess) {
    d.name = prop.name;
    d.compute_major = prop.major;
    d.compute_minor = prop.minor;
    d.memory_bytes = prop.totalGlobalMem;
  }
  char bus[32] = "";
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, index) == cudaSuccess) d.pci_bus_id = bus;
  for (int peer = 0; peer < count; ++peer) {
    int can = 0;
    if (peer != index && cudaDeviceCanAccessPeer(&can, index, peer) == cudaSuccess && can)
      d.peers.push_back(peer);
  }
  return d;
}

}  // namespace

CudaDevices cuda_devices() {
  CudaDevices out;
  int runtime = 0, driver = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) out.runtime_version = version_text(runtime);
  if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0)
    out.driver_version = version_text(driver);
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    out.absent = e != cudaSuccess ? why_none(e) : "no device (the driver reports none)";
    return out;
  }
  for (int i = 0; i < count; ++i) out.devices.push_back(device(i, count));
  return out;
}

std::string cuda_absent_before_init() {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists("/proc/driver/nvidia/version", ec))
    return "no CUDA driver (no /proc/driver/nvidia/version: the NVIDIA kernel driver is not "
           "loaded)";
  if (fs::is_empty("/proc/driver/nvidia/gpus", ec) || ec)
    return "no device (the NVIDIA driver lists no GPU in /proc/driver/nvidia/gpus)";
  return "";
}

namespace {

// What one look through the loaded libraries found: the count of
// libraries added to the process so far (glibc's dlpi_adds), and whether
// one is CUDA's driver.
struct Look {
  unsigned long long since;  // the count at the last look: nothing new, nothing to do
  unsigned long long adds = 0;
  bool found = false;
};

int look_at(dl_phdr_info* info, std::size_t, void* data) {
  auto& look = *static_cast<Look*>(data);
  look.adds = info->dlpi_adds;
  if (look.adds == look.since) return 1;
  look.found = info->dlpi_name != nullptr && std::strstr(info->dlpi_name, "libcuda.so") != nullptr;
  return look.found ? 1 : 0;
}

}  // namespace

bool cuda_driver_loaded() {
  static std::atomic<bool> loaded{false};
  static std::atomic<unsigned long long> looked_at{~0ULL};
  if (loaded.load(std::memory_order_relaxed)) return true;
  Look look{looked_at.load(std::memory_order_relaxed)};
  dl_iterate_phdr(look_at, &look);
  looked_at.store(look.adds, std::memory_order_relaxed);
  if (look.found) loaded.store(true, std::memory_order_relaxed);
  return look.found;
}

}  // namespace cct::device
