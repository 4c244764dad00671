// Reading the buffers of one collective call (cct_coll_args) as bytes.
#pragma once

#include <cstddef>
#include <cstring>
#include <stdexcept>

#include "cct/abi/algorithm.h"
#include "cct/sdk/datatype.hpp"

namespace cct::plugins {

// Bytes per element of the call's datatype.
inline std::size_t elem_size(const cct_coll_args& a) {
  const std::size_t size = sdk::dtype_size(a.dtype);
  if (size == 0) throw std::invalid_argument("unknown datatype");
  return size;
}

inline bool in_place(const cct_coll_args& a) {
  return a.sendbuf == CCT_IN_PLACE;
}

// The call's input: sendbuf, or recvbuf for the in-place forms.
inline const std::byte* input_of(const cct_coll_args& a) {
  return static_cast<const std::byte*>(in_place(a) ? a.recvbuf : a.sendbuf);
}

inline std::byte* output_of(const cct_coll_args& a) {
  return static_cast<std::byte*>(a.recvbuf);
}

// memcpy that tolerates dst == src (an in-place block already where it belongs).
inline void copy_bytes(std::byte* dst, const std::byte* src, std::size_t bytes) {
  if (dst != src && bytes > 0) std::memcpy(dst, src, bytes);
}

}  // namespace cct::plugins
