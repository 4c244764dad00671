// The CUDA devices in a build without a CUDA toolkit (cuda_devices.hpp).
#include "cct/device/cuda_devices.hpp"

namespace cct::device {

CudaDevices cuda_devices() {
  return {.absent =
              "not built with CUDA: no CUDA toolkit was found when this build was "
              "configured (CMake's FindCUDAToolkit; CUDAToolkit_ROOT names one)"};
}

}  // namespace cct::device
