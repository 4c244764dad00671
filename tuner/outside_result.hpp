// ccautotune tuner: what the outside check's runs say of a profile.
//
// The outside check (outside_check.hpp) runs osu_style_bench alternately
// on the library alone and under the interposer with the profile; here
// its runs become figures. Each point's figure on each side is the median
// over its runs (the geometric mean is what a user sees). A pick's
// figures, to judge it by, are compared within a level of the machine's
// latency (latency_levels.hpp: the benchmark's probe before each point),
// at the level where the pick does worst, each level's drift taken out
// (OutsideResult::calibration): a pick that wins only at the fast level
// loses to the library at the slow one, where a user's run may land.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cct/profile.hpp"
#include "cct/registry.hpp"
#include "tuner/latency_levels.hpp"
#include "tuner/outside_figures.hpp"

namespace cct::tuner {

// One run of the benchmark: each point's (collective, bytes) figure and
// the probe before it, in seconds, and its ranks.
struct BenchRun {
  std::map<std::pair<std::string, int64_t>, Timed> figures;
  int np = 0;
};

struct OutsideResult {
  std::vector<OutsideFigure> figures;  // one per point timed
  int np = 0;                          // the benchmark's ranks
  int runs = 0;                        // of each side (both_levels_seen may have added some)
  int picks = 0;                       // points whose pick is not the library's own call
  int refuted = 0;                     // of those, the ones refuted (OutsideFigure::refuted)
  double geometric_mean = 0;           // of the profile's medians over the library's
  // The probe's levels over both sides' runs, and the share of each
  // side's points timed at the slow one (both near alike: the preload does
  // not move the machine's level).
  LatencyLevels levels;
  double slow_share_library = 0, slow_share_profile = 0;
  // The median ratio of the points the profile keeps on the library (both
  // sides the library's code: how far the two sides drifted apart in this
  // check), at the fast level [0] and the slow one [1] (one level: both
  // alike), over `kept` points (at the fast level); the picks' profile_s
  // are divided by it. 1 where too few points keep the library to tell.
  double calibration[2] = {1, 1};
  int kept = 0;
};

// The probe's levels over every point of both sides' runs.
LatencyLevels levels_of(const std::vector<BenchRun>& library,
                        const std::vector<BenchRun>& profiled);

// Whether each side has kFewestAtLevel runs at each of the levels (true
// with one level), a run counted at the level of most of its points. The
// level holds mostly for a whole process (of 15 fresh runs a side, 18-71%
// at the slow one, few runs mixed), and 7 runs a side left a side with
// fewer than 2 runs at a level in 35 of 135 windows of 7 runs of such
// series (docs/benchmarks.md, issue 49, seventh stop); judged at the fast
// level alone, a pick that collapses at the slow one is kept.
bool both_levels_seen(const std::vector<BenchRun>& library, const std::vector<BenchRun>& profiled);

// The figures of these runs (not empty, the same np) of each side for
// `profile`: one per point both sides timed, with the profile's pick there
// as the runtime serves one node's communicator (shm).
OutsideResult judge_outside(const std::vector<BenchRun>& library,
                            const std::vector<BenchRun>& profiled, const Profile& profile,
                            const Registry& registry);

}  // namespace cct::tuner
