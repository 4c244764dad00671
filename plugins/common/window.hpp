// The window of the throttled linear algorithms (window_param.hpp): how many
// transfers the root (each rank, for alltoallv) keeps in flight.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "cct/sdk/comm.hpp"

namespace cct::plugins {

inline void validate_window(int64_t window) {
  if (window < 1) throw cct::sdk::Unsupported("max_outstanding " + std::to_string(window) + " < 1");
}

// A window wider than the number of peers buys nothing: clamp it.
inline std::size_t effective_window(int64_t window, int size) {
  validate_window(window);
  return static_cast<std::size_t>(std::min<int64_t>(window, std::max(size - 1, 1)));
}

}  // namespace cct::plugins
