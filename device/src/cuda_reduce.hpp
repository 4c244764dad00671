// The device reduction kernel: inout[i] = op(inout[i], in[i]) on a stream,
// for every datatype and operator of the ABI, by the host's rules
// (cct::sdk::detail::combine: integer sums and products wrap).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "cct/abi/common.h"

namespace cct::device {

// Enqueues the reduction; returns the launch's error (cudaSuccess once
// enqueued). count 0 enqueues nothing.
cudaError_t launch_reduce(void* inout, const void* in, std::size_t count, cct_datatype dtype,
                          cct_op op, cudaStream_t stream);

}  // namespace cct::device
