#include <array>

#include "cct/sdk/datatype.hpp"
#include "cuda_reduce.hpp"

namespace cct::device {
namespace {

// One thread per element in a grid-stride loop: the reduction reads two
// streams and writes one, so it is bound by the device's memory bandwidth
// and any grid that covers the device's cores reaches it.
constexpr int kThreads = 256;
constexpr std::size_t kMaxBlocks = 4096;

// The element rule is the host's own (constexpr, so nvcc compiles it for
// the device with --expt-relaxed-constexpr): a device sum is bit for bit a
// host sum.
template <class T, cct_op Op>
__global__ void reduce_kernel(T* inout, const T* in, std::size_t count) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += stride)
    inout[i] = sdk::detail::combine<T>(inout[i], in[i], Op);
}

template <class T, cct_op Op>
cudaError_t launch(void* inout, const void* in, std::size_t count, cudaStream_t stream) {
  const std::size_t blocks = std::min(kMaxBlocks, (count + kThreads - 1) / kThreads);
  reduce_kernel<T, Op><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      static_cast<T*>(inout), static_cast<const T*>(in), count);
  return cudaGetLastError();
}

using Launch = cudaError_t (*)(void*, const void*, std::size_t, cudaStream_t);

template <class T>
constexpr std::array<Launch, CCT_OP_COUNT> launches_of() {
  return {launch<T, CCT_SUM>, launch<T, CCT_PROD>, launch<T, CCT_MIN>, launch<T, CCT_MAX>};
}

// By cct_datatype, then cct_op: the order of their enums.
constexpr std::array<std::array<Launch, CCT_OP_COUNT>, CCT_DATATYPE_COUNT> kLaunches = {
    launches_of<int8_t>(),   launches_of<int16_t>(),  launches_of<int32_t>(),
    launches_of<int64_t>(),  launches_of<uint8_t>(),  launches_of<uint16_t>(),
    launches_of<uint32_t>(), launches_of<uint64_t>(), launches_of<float>(),
    launches_of<double>()};

}  // namespace

cudaError_t launch_reduce(void* inout, const void* in, std::size_t count, cct_datatype dtype,
                          cct_op op, cudaStream_t stream) {
  if (dtype < 0 || dtype >= CCT_DATATYPE_COUNT || op < 0 || op >= CCT_OP_COUNT)
    return cudaErrorInvalidValue;
  if (count == 0) return cudaSuccess;
  return kLaunches[dtype][op](inout, in, count, stream);
}

}  // namespace cct::device
