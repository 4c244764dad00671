// The size rules of a profile bucket as (lo, hi, algorithm), for tests that
// compare the rules built from results with the ones they expect.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "cct/profile.hpp"

namespace cct::test {

using Range = std::tuple<int64_t, int64_t, std::string>;

inline std::vector<Range> ranges(const cct::RankBucket& bucket) {
  std::vector<Range> out;
  for (const cct::SizeRule& s : bucket.sizes) out.emplace_back(s.lo, s.hi, s.algorithm);
  return out;
}

}  // namespace cct::test
