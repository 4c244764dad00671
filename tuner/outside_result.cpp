#include "tuner/outside_result.hpp"

#include <algorithm>
#include <cmath>

#include "cct/collectives.hpp"
#include "cct/error.hpp"
#include "cct/units.hpp"

namespace cct::tuner {
namespace {

using Point = std::pair<std::string, int64_t>;  // (collective, bytes)

// Each point's runs on both sides.
std::map<Point, PointRuns> by_point(const std::vector<BenchRun>& library,
                                    const std::vector<BenchRun>& profiled) {
  std::map<Point, PointRuns> points;
  for (const BenchRun& run : library)
    for (const auto& [point, timed] : run.figures) points[point].library.push_back(timed);
  for (const BenchRun& run : profiled)
    for (const auto& [point, timed] : run.figures) points[point].profile.push_back(timed);
  return points;
}

// How many of a run's points were timed at the slow level.
std::ptrdiff_t slow_points(const BenchRun& run, const LatencyLevels& levels) {
  return std::ranges::count_if(run.figures,
                               [&](const auto& point) { return levels.slow(point.second.probe); });
}

// The share of these runs' points timed at the slow level.
double slow_share(const std::vector<BenchRun>& runs, const LatencyLevels& levels) {
  std::ptrdiff_t slow = 0, all = 0;
  for (const BenchRun& run : runs) {
    slow += slow_points(run, levels);
    all += static_cast<std::ptrdiff_t>(run.figures.size());
  }
  return all > 0 ? static_cast<double>(slow) / static_cast<double>(all) : 0;
}

// Both sides run the library's own code where the profile keeps it, so
// those points' ratios measure how far this check's two sides drifted
// apart (on the project's VM whole processes run in faster or slower
// modes: in one check the library's 8-byte bcast, kept, took 0.57 us under
// the interposer and 0.33 alone, every kept point about 1.5x). The picks'
// figures are divided by the median of those ratios, where at least
// kFewestKept points keep the library; at each level apart.
constexpr int kFewestKept = 10;

// The kept points' median ratio at one level (`slow`), and how many.
std::pair<double, int> drift(const std::map<Point, PointRuns>& points,
                             const std::vector<OutsideFigure>& figures, const Registry& registry,
                             const LatencyLevels& levels, bool slow) {
  std::vector<double> kept;
  for (const OutsideFigure& f : figures)
    if (keeps_library(f, registry))
      if (const auto at = at_level(points.at({f.collective, f.bytes}), levels, slow))
        kept.push_back(at->profile_s / at->library_s);
  const int n = static_cast<int>(kept.size());
  return {n >= kFewestKept ? median(std::move(kept)) : 1, n};
}

// A pick's figures: at the level where it does worst against the library
// (each level's drift taken out), of those where both sides have
// kFewestAtLevel runs; a pick that wins only at the fast level loses to
// the library, which a user's run at the slow one sees. Where neither
// level has, over every run (one level).
void judge_by_level(OutsideFigure& f, const PointRuns& runs, const OutsideResult& result) {
  double worst = 0;
  for (const bool slow : {false, true}) {
    const auto at = at_level(runs, result.levels, slow);
    if (!at || (result.levels.threshold == 0 && slow)) continue;
    const double profile_s = at->profile_s / result.calibration[slow];
    if (profile_s / at->library_s <= worst) continue;
    worst = profile_s / at->library_s;
    f.library_s = at->library_s;
    f.profile_s = profile_s;
    f.runs = at->runs;
  }
  if (worst == 0) f.profile_s /= result.calibration[0];
}

// Each level's drift, then each pick's figures at its worst level.
void judge_picks(OutsideResult& result, const std::map<Point, PointRuns>& points,
                 const Registry& registry) {
  const bool two = result.levels.threshold > 0;
  const auto [fast, kept] = drift(points, result.figures, registry, result.levels, false);
  result.kept = kept;
  result.calibration[0] = fast;
  result.calibration[1] =
      two ? drift(points, result.figures, registry, result.levels, true).first : fast;
  for (OutsideFigure& f : result.figures)
    if (!keeps_library(f, registry)) judge_by_level(f, points.at({f.collective, f.bytes}), result);
}

// What runs a call no rule covers under the interposer: the library's own
// call (runtime.hpp, Options::library_without_rule), else the default.
const AlgorithmEntry* without_rule(const CollectiveInfo& c, const Registry& registry) {
  const AlgorithmEntry* library = registry.library_algorithm(c.id);
  return library ? library : registry.find_algorithm(c.id, c.default_algorithm);
}

// How many of these runs had most of their points at the slow level
// (`slow`) or the other.
int runs_at_level(const std::vector<BenchRun>& runs, const LatencyLevels& levels, bool slow) {
  return static_cast<int>(std::ranges::count_if(runs, [&](const BenchRun& run) {
    const std::ptrdiff_t at_slow = slow_points(run, levels);
    const auto all = static_cast<std::ptrdiff_t>(run.figures.size());
    return slow ? 2 * at_slow > all : 2 * at_slow <= all;
  }));
}

}  // namespace

LatencyLevels levels_of(const std::vector<BenchRun>& library,
                        const std::vector<BenchRun>& profiled) {
  std::vector<double> probes;
  for (const auto* side : {&library, &profiled})
    for (const BenchRun& run : *side)
      for (const auto& [point, timed] : run.figures) probes.push_back(timed.probe);
  return find_levels(std::move(probes));
}

bool both_levels_seen(const std::vector<BenchRun>& library, const std::vector<BenchRun>& profiled) {
  const LatencyLevels levels = levels_of(library, profiled);
  if (levels.threshold == 0) return true;
  for (const auto* side : {&library, &profiled})
    for (const bool slow : {false, true})
      if (runs_at_level(*side, levels, slow) < kFewestAtLevel) return false;
  return true;
}

OutsideResult judge_outside(const std::vector<BenchRun>& library,
                            const std::vector<BenchRun>& profiled, const Profile& profile,
                            const Registry& registry) {
  OutsideResult result{.np = library.front().np, .runs = static_cast<int>(library.size())};
  // The runtime serves one node's communicator with shm (comm_runtimes.cpp).
  const Selector selector(profile, {}, registry, "shm", result.np, 1);
  const std::map<Point, PointRuns> points = by_point(library, profiled);
  double log_sum = 0;
  for (const auto& [point, runs] : points) {
    const auto every_run = at_level(runs, LatencyLevels{}, false);
    if (!every_run) continue;
    const CollectiveInfo& c = *find_collective(point.first);
    // The benchmark's reductions are of float; its other calls move bytes.
    const cct_datatype dtype = c.reduction ? CCT_FLOAT : CCT_DATATYPE_COUNT;
    const Selection* pick = selector.select(c.id, static_cast<std::size_t>(point.second), dtype);
    const AlgorithmEntry* alg = pick ? pick->algorithm : without_rule(c, registry);
    if (alg == nullptr) continue;
    log_sum += std::log(every_run->profile_s / every_run->library_s);
    const bool typed = pick && pick->bucket == Selection::Bucket::kElementType;
    result.figures.push_back(
        {.collective = c.name,
         .transport = "shm",
         .np = result.np,
         .bytes = point.second,
         .datatype = typed ? datatype_name(CCT_FLOAT) : "",
         .pick = pick ? format_choice(*alg->desc, pick->params) : alg->desc->name,
         .library_s = every_run->library_s,
         .profile_s = every_run->profile_s,
         .runs = result.runs});
  }
  if (!result.figures.empty()) result.geometric_mean = std::exp(log_sum / result.figures.size());
  result.levels = levels_of(library, profiled);
  result.slow_share_library = slow_share(library, result.levels);
  result.slow_share_profile = slow_share(profiled, result.levels);
  judge_picks(result, points, registry);
  for (const OutsideFigure& f : result.figures)
    if (!keeps_library(f, registry)) {
      ++result.picks;
      result.refuted += f.refuted();
    }
  return result;
}

}  // namespace cct::tuner
