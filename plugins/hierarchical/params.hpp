// The parameters the hierarchical algorithms share: where to split (two_level)
// and the chunk size of the shared-memory pipeline (all of them).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "cct/sdk/comm.hpp"

namespace cct::plugins::hierarchical {

inline constexpr std::array<int64_t, 4> kLevelCandidates{-1, 0, 1, 2};
inline constexpr cct_param_desc kLevelParam{
    .name = "level",
    .doc = "split at comm level i (-1: innermost cache level; >= levels: one group)",
    .type = CCT_PARAM_INT,
    .default_value = -1,
    .candidates = kLevelCandidates.data(),
    .ncandidates = kLevelCandidates.size(),
    .lo = 0,
    .hi = 0,
    .step = 0,
    .step_kind = CCT_STEP_ADD,
};

inline constexpr std::array<int64_t, 3> kChunkCandidates{8 << 10, 32 << 10, 128 << 10};
inline constexpr cct_param_desc kChunkParam{
    .name = "chunk",
    .doc = "bytes per slot of the shared-memory pipeline (4 slots per group)",
    .type = CCT_PARAM_BYTES,
    .default_value = 32 << 10,
    .candidates = kChunkCandidates.data(),
    .ncandidates = kChunkCandidates.size(),
    .lo = 0,
    .hi = 0,
    .step = 0,
    .step_kind = CCT_STEP_ADD,
};

inline int64_t validate_level(int64_t level) {
  if (level < -1) throw cct::sdk::Unsupported("level " + std::to_string(level) + " < -1");
  return level;
}

}  // namespace cct::plugins::hierarchical
