// ccautotune C++ SDK: element types and the local reduction kernel.
//
// Header-only, so a plugin needs nothing from the host library to reduce.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "cct/abi/common.h"

namespace cct::sdk {

constexpr std::size_t dtype_size(cct_datatype dtype) {
  switch (dtype) {
    case CCT_INT8:
    case CCT_UINT8: return 1;
    case CCT_INT16:
    case CCT_UINT16: return 2;
    case CCT_INT32:
    case CCT_UINT32:
    case CCT_FLOAT: return 4;
    case CCT_INT64:
    case CCT_UINT64:
    case CCT_DOUBLE: return 8;
    default: return 0;
  }
}

namespace detail {

// Integer sums and products are computed in the unsigned type of the same
// width: that wraps modulo 2^bits, which is what two's complement callers
// expect, and is defined behaviour where signed overflow is not.
// constexpr, so that the CUDA transport's kernel (device/src/cuda_reduce.cu)
// applies this very rule on the device.
template <class T>
constexpr T combine(T a, T b, cct_op op) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    switch (op) {
      case CCT_SUM: return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
      case CCT_PROD: return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
      case CCT_MIN: return b < a ? b : a;
      default: return a < b ? b : a;
    }
  } else {
    switch (op) {
      case CCT_SUM: return a + b;
      case CCT_PROD: return a * b;
      case CCT_MIN: return b < a ? b : a;
      default: return a < b ? b : a;
    }
  }
}

// out[i] = f(a[i], b[i]). When out is a, the loop reads one input stream
// fewer, and GCC vectorises it with an overlap check against b alone.
template <class T, class F>
void combine_all(T* out, const T* a, const T* b, std::size_t count, F f) {
  if (out == a)
    for (std::size_t i = 0; i < count; ++i) out[i] = f(out[i], b[i]);
  else
    for (std::size_t i = 0; i < count; ++i) out[i] = f(a[i], b[i]);
}

template <class T>
void reduce_typed(void* out, const void* a, const void* b, std::size_t count, cct_op op) {
  T* o = static_cast<T*>(out);
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  // One switch per call, not per element: each loop below has a constant
  // operator, which is what lets it be vectorised.
  switch (op) {
    case CCT_SUM:
      return combine_all(o, x, y, count, [](T u, T v) { return combine(u, v, CCT_SUM); });
    case CCT_PROD:
      return combine_all(o, x, y, count, [](T u, T v) { return combine(u, v, CCT_PROD); });
    case CCT_MIN:
      return combine_all(o, x, y, count, [](T u, T v) { return combine(u, v, CCT_MIN); });
    default: return combine_all(o, x, y, count, [](T u, T v) { return combine(u, v, CCT_MAX); });
  }
}

}  // namespace detail

// out[i] = a[i] (op) b[i] for i < count; out may be a or b, or overlap
// neither. Throws std::invalid_argument for a type or operator outside the
// ABI's enums.
inline void reduce_into(void* out, const void* a, const void* b, std::size_t count,
                        cct_datatype dtype, cct_op op) {
  if (op < CCT_SUM || op >= CCT_OP_COUNT) throw std::invalid_argument("unknown reduction operator");
  switch (dtype) {
    case CCT_INT8: return detail::reduce_typed<int8_t>(out, a, b, count, op);
    case CCT_INT16: return detail::reduce_typed<int16_t>(out, a, b, count, op);
    case CCT_INT32: return detail::reduce_typed<int32_t>(out, a, b, count, op);
    case CCT_INT64: return detail::reduce_typed<int64_t>(out, a, b, count, op);
    case CCT_UINT8: return detail::reduce_typed<uint8_t>(out, a, b, count, op);
    case CCT_UINT16: return detail::reduce_typed<uint16_t>(out, a, b, count, op);
    case CCT_UINT32: return detail::reduce_typed<uint32_t>(out, a, b, count, op);
    case CCT_UINT64: return detail::reduce_typed<uint64_t>(out, a, b, count, op);
    case CCT_FLOAT: return detail::reduce_typed<float>(out, a, b, count, op);
    case CCT_DOUBLE: return detail::reduce_typed<double>(out, a, b, count, op);
    default: throw std::invalid_argument("unknown datatype");
  }
}

// inout[i] = inout[i] (op) in[i] for i < count.
inline void reduce_local(void* inout, const void* in, std::size_t count, cct_datatype dtype,
                         cct_op op) {
  reduce_into(inout, inout, in, count, dtype, op);
}

}  // namespace cct::sdk
