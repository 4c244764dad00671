// The CUDA devices in a build without a CUDA toolkit (cuda_devices.hpp).
#include "cct/device/cuda_devices.hpp"

namespace cct::device {

namespace {

const char* kNotBuilt =
    "not built with CUDA: no CUDA toolkit was found when this build was "
    "configured (CMake's FindCUDAToolkit; CUDAToolkit_ROOT names one)";

}  // namespace

CudaDevices cuda_devices() {
  return {.absent = kNotBuilt};
}

std::string cuda_absent_before_init() {
  return kNotBuilt;
}

bool cuda_driver_loaded() {
  return false;
}

}  // namespace cct::device
