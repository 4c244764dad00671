// Large messages through small shared-memory slots: the chunk size the
// pipelined shared-memory algorithms take as a parameter, and how a message
// splits into chunks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "cct/sdk/comm.hpp"

namespace cct::plugins {

// A cache line: flags and slots each start on their own, so that ranks
// writing neighbouring words do not take the line from each other.
inline constexpr std::size_t kLine = 64;

// A chunk is a multiple of the cache line, so that every slot starts on a
// line of its own (and elements of every type are aligned).
inline std::size_t validate_chunk(int64_t chunk) {
  if (chunk < static_cast<int64_t>(kLine) || chunk % static_cast<int64_t>(kLine) != 0)
    throw cct::sdk::Unsupported("chunk " + std::to_string(chunk) +
                                " is not a positive multiple of 64");
  return static_cast<std::size_t>(chunk);
}

// Chunks of `chunk` bytes in `bytes` bytes (the last one may be short).
inline uint64_t chunks_in(std::size_t bytes, std::size_t chunk) {
  return (bytes + chunk - 1) / chunk;
}

}  // namespace cct::plugins
