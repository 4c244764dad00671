// CUDA's runtime as a Backend (backend.hpp). Declared in every build;
// defined only where CMake found a CUDA toolkit (CCT_HAVE_CUDA is 1): code
// that opens it is built only then.
#pragma once

#include <memory>

#include "cct/device/backend.hpp"

namespace cct::device {

// For open_cuda_backend: the calling thread's current device, which a
// program chooses (cudaSetDevice) before its first collective.
inline constexpr int kCurrentDevice = -1;

// The backend on CUDA device `device` (0 .. the device count - 1, or
// kCurrentDevice). Every call it makes runs on that device and leaves the
// calling thread's current device as it found it. Throws Error naming the
// reason ("no CUDA driver (...)", "device 3 of 1").
std::unique_ptr<Backend> open_cuda_backend(int device);

}  // namespace cct::device
