// The chunk size in which the transport stages an algorithm's messages
// through host memory (device -> pinned host -> host transport -> pinned
// host -> device, one chunk's copy overlapping the transfer of the one
// before): a parameter of every algorithm on device memory. Small chunks
// start the overlap sooner; large ones pay the per-chunk costs (a copy
// launch, a message) less often; which wins depends on the device's copy
// engines, the host transport and the message, so the tuner measures each
// candidate and the profile carries, per collective and size, the chunk
// that won. The two sides of a message must use the same chunk, and a
// rule's parameters are equal on every rank. CCT_CUDA_CHUNK, where set,
// overrides it (the transport ignores set_chunk then).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cct/sdk/algorithm.hpp"
#include "cct/sdk/cost.hpp"
#include "cct/sdk/device.hpp"

namespace cct::plugins::device {

inline constexpr std::array<int64_t, 3> kChunkBytes{int64_t{256} << 10, int64_t{1} << 20,
                                                    int64_t{4} << 20};

inline constexpr cct_param_desc kChunkParam{
    .name = "chunk",
    .doc = "bytes per chunk of a message staged through host memory",
    .type = CCT_PARAM_BYTES,
    .default_value = kChunkBytes[1],
    .candidates = kChunkBytes.data(),
    .ncandidates = kChunkBytes.size()};

// The cost of `messages` messages of `bytes` each, one after another,
// staged in `chunk`-byte chunks: the chunks pass the host link one after
// another, behind the device-to-host copy of the first chunk and ahead of
// the host-to-device copy of the last (the copies of the others overlap
// the transfers).
inline sdk::CostShape staged_cost(const sdk::Comm& comm, double messages, std::size_t bytes,
                                  int64_t chunk) {
  const auto c = static_cast<std::size_t>(chunk);
  return sdk::CostShape()
      .send(sdk::outer_span(comm), messages * static_cast<double>((bytes + c - 1) / c),
            messages * static_cast<double>(bytes))
      .copy(messages * 2 * static_cast<double>(std::min(bytes, c)));
}

class StagingChunk {
 public:
  explicit StagingChunk(int64_t bytes) : bytes_(bytes) {
    if (bytes < 1)
      throw std::invalid_argument("chunk must be >= 1 (got " + std::to_string(bytes) + ")");
  }
  int64_t bytes() const { return bytes_; }
  // Before the algorithm posts its messages.
  void apply(const sdk::Comm& comm) const {
    sdk::Device(comm).set_chunk(static_cast<std::size_t>(bytes_));
  }

 private:
  int64_t bytes_;
};

}  // namespace cct::plugins::device
