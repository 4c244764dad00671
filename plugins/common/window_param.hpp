// The parameter of the throttled linear algorithms (gather, scatter,
// gatherv, scatterv, alltoallv): how many transfers the root (each rank,
// for alltoallv) keeps in flight.
#pragma once

#include <array>
#include <cstdint>

#include "cct/abi/algorithm.h"

namespace cct::plugins {

inline constexpr std::array<int64_t, 4> kWindowCandidates{1, 2, 4, 8};
inline constexpr cct_param_desc kWindowParam{
    .name = "max_outstanding",
    .doc = "transfers in flight at the root (at each rank: alltoallv)",
    .type = CCT_PARAM_INT,
    .default_value = 4,
    .candidates = kWindowCandidates.data(),
    .ncandidates = kWindowCandidates.size(),
    .lo = 0,
    .hi = 0,
    .step = 0,
    .step_kind = CCT_STEP_ADD,
};

}  // namespace cct::plugins
