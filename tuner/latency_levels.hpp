// ccautotune tuner: the levels a machine's latency moves between, told
// apart by a probe.
//
// On the project's 2-core VM the latency between the two cores moves
// between two levels for seconds at a time, and every collective with it:
// an 8-byte MPI_Send/MPI_Recv ping-pong, one way, took 0.14-0.21 us or
// 0.37-0.49 us, in 4 of 10 processes of a few seconds both, and a point of
// a benchmark run up to 2x as long at the slow level. A median over runs
// then counts how many of each side's runs drew the slow level: the
// library against itself (both sides the library alone, 15 runs a side)
// gave geometric means of 1.28, 0.80 and 1.16 in three replicates.
// osu_style_bench times such a ping-pong before each point (its probe_us,
// a point-to-point call the interposer does not take), and the outside
// check (outside_check.hpp) compares a point's runs within one level.
#pragma once

#include <optional>
#include <vector>

namespace cct::tuner {

// Levels: the two groups of probe figures that differ most (Otsu's
// split, in log time: the largest variance between the groups), where
// each holds at least kLevelShare of the figures (a few figures of spikes,
// up to 14 us here, are no level) and their medians lie at least
// kLevelRatio apart (here 2-2.5x; a split within one level, 1.1-1.3x).
constexpr double kLevelShare = 0.05;
constexpr double kLevelRatio = 1.5;

struct LatencyLevels {
  double threshold = 0;  // a probe above is of the slow level; 0: one level
  bool slow(double probe) const { return threshold > 0 && probe > threshold; }
};

// The levels of these probe figures (one per timed point, from every run
// of both sides); the threshold at the geometric middle between the two
// groups. Figures of 0 (no probe: one rank) are left out.
LatencyLevels find_levels(std::vector<double> probes);

// The middle of these figures (the mean of the middle two), not empty.
double median(std::vector<double> values);

// One run's figure of a point, and the probe timed just before it.
struct Timed {
  double seconds = 0;
  double probe = 0;
};

// One point's runs on each side: the library alone, the profile.
struct PointRuns {
  std::vector<Timed> library, profile;
};

// What one level says of a point: each side's median over its runs there.
struct LevelFigures {
  double library_s = 0, profile_s = 0;
  int runs = 0;  // the fewer of the two sides' runs at the level
};

// A level must hold this many runs of a point on each side to compare them.
constexpr int kFewestAtLevel = 2;

// The point's figures at the slow level (`slow`) or the other, where each
// side has kFewestAtLevel runs there; with one level, over every run.
std::optional<LevelFigures> at_level(const PointRuns& runs, const LatencyLevels& levels, bool slow);

}  // namespace cct::tuner
