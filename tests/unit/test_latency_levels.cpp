// The machine's latency levels (tuner/latency_levels.hpp) and the outside
// check's judgement within them (tuner/outside_result.hpp), from synthetic
// probe figures and benchmark runs.
#include <catch2/catch.hpp>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "cct/profile.hpp"
#include "support/harness.hpp"
#include "tuner/latency_levels.hpp"
#include "tuner/outside_result.hpp"

namespace {

using cct::tuner::BenchRun;
using cct::tuner::find_levels;
using cct::tuner::PointRuns;
using cct::tuner::Timed;

constexpr double kFast = 0.17e-6, kSlow = 0.42e-6;  // the probe at the two levels, seconds

// n figures spread evenly over [lo, hi].
std::vector<double> spread(double lo, double hi, int n) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(lo + (hi - lo) * i / std::max(n - 1, 1));
  return out;
}

std::vector<double> joined(std::vector<double> a, const std::vector<double>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// bcast kept on the library below 1k, knomial from 1k.
const char* const kProfile =
    "schema: 3\n"
    "tool_version: 0.1.0\n"
    "date: 2026-12-02T00:00:00Z\n"
    "machine:\n"
    "  fingerprint: 0123456789abcdef\n"
    "  summary: pack:1 core:2 pu:2\n"
    "  nodes: 1\n"
    "  ranks_per_node: 2\n"
    "  packages: 1\n"
    "  numa_nodes: 1\n"
    "  cores: 2\n"
    "  pus: 2\n"
    "  caches: L2 1M x2\n"
    "tuning:\n"
    "  max_bytes: 4M\n"
    "rules:\n"
    "  bcast:\n"
    "    shm:\n"
    "      - np: [1, max]\n"
    "        sizes:\n"
    "          - range: [0, 1k]\n"
    "            algorithm: mpi\n"
    "          - range: [1k, max]\n"
    "            algorithm: knomial\n"
    "            params: {radix: 4}\n";

// One run of one side: bcast at 1 B - 512 B (kept: 1 us, 2 us at the slow
// level, times `kept_factor`) and at 1k and 2k (`at_1k`, `at_2k`), every
// point timed at the level `slow`.
BenchRun run(bool slow, double kept_factor, double at_1k, double at_2k) {
  BenchRun r{.np = 2};
  const double probe = slow ? kSlow : kFast;
  for (int64_t bytes = 1; bytes <= 512; bytes *= 2)
    r.figures[{"bcast", bytes}] = {(slow ? 2e-6 : 1e-6) * kept_factor, probe};
  r.figures[{"bcast", 1024}] = {at_1k, probe};
  r.figures[{"bcast", 2048}] = {at_2k, probe};
  return r;
}

const cct::tuner::OutsideFigure& figure_at(const cct::tuner::OutsideResult& result, int64_t bytes) {
  for (const cct::tuner::OutsideFigure& f : result.figures)
    if (f.bytes == bytes) return f;
  FAIL("no figure at " << bytes);
  return result.figures.front();
}

}  // namespace

TEST_CASE("probe figures at two levels are told apart; one level, or spikes, are not", "[tuner]") {
  // The project's VM: 0.14-0.21 us or 0.37-0.49 us.
  const auto two = find_levels(joined(spread(0.14e-6, 0.21e-6, 60), spread(0.37e-6, 0.49e-6, 30)));
  CHECK(two.threshold > 0.21e-6);
  CHECK(two.threshold < 0.37e-6);
  CHECK_FALSE(two.slow(0.21e-6));
  CHECK(two.slow(0.37e-6));
  // A few figures between the levels do not hide them.
  const auto blurred = find_levels(joined(
      joined(spread(0.14e-6, 0.21e-6, 60), spread(0.37e-6, 0.49e-6, 30)), {0.27e-6, 0.3e-6}));
  CHECK(blurred.threshold > 0.21e-6);
  CHECK(blurred.threshold < 0.37e-6);
  // One level spread 1.35x, with spikes of up to 14 us in 2% of the figures:
  // no second level.
  CHECK(find_levels(spread(0.14e-6, 0.19e-6, 100)).threshold == 0);
  CHECK(find_levels(joined(spread(0.14e-6, 0.19e-6, 98), {1.4e-6, 13.8e-6})).threshold == 0);
  // No probe (one rank: 0), or none at all.
  CHECK(find_levels(std::vector<double>(50, 0.0)).threshold == 0);
  CHECK(find_levels({}).threshold == 0);
}

TEST_CASE("a point's runs are compared within a level where each side has two", "[tuner]") {
  const PointRuns runs{.library = {{1e-6, kFast}, {1.2e-6, kFast}, {2e-6, kSlow}},
                       .profile = {{0.8e-6, kFast}, {0.9e-6, kFast}, {2.5e-6, kSlow}}};
  const cct::tuner::LatencyLevels levels{.threshold = std::sqrt(kFast * kSlow)};
  const auto fast = cct::tuner::at_level(runs, levels, false);
  REQUIRE(fast);
  CHECK(fast->library_s == Approx(1.1e-6));
  CHECK(fast->profile_s == Approx(0.85e-6));
  CHECK(fast->runs == 2);
  CHECK_FALSE(cct::tuner::at_level(runs, levels, true));  // one run of each side there
  // One level: every run.
  const auto every = cct::tuner::at_level(runs, {}, false);
  REQUIRE(every);
  CHECK(every->library_s == Approx(1.2e-6));
  CHECK(every->profile_s == Approx(0.9e-6));
  CHECK(every->runs == 3);
}

TEST_CASE(
    "the outside check judges a pick at the level where it does worst; a user sees the "
    "medians",
    "[tuner]") {
  const cct::Profile profile =
      cct::profile_from_yaml(kProfile, "levels.yaml", &cct::test::registry());
  // Four runs a side at the fast level, two at the slow one. knomial wins
  // at 1k by 20% at the fast level and loses by 20% at the slow one (1.6x
  // the library's slowdown, where the library slows 2x); at 2k it wins at
  // both. The profile's side drifts 10% on the kept points at both levels.
  std::vector<BenchRun> library, profiled;
  for (int i = 0; i < 6; ++i) {
    const bool slow = i >= 4;
    library.push_back(run(slow, 1, slow ? 2e-6 : 1e-6, slow ? 2e-6 : 1e-6));
    profiled.push_back(
        run(slow, 1.1, slow ? 2.4e-6 * 1.1 : 0.8e-6 * 1.1, slow ? 1.6e-6 * 1.1 : 0.8e-6 * 1.1));
  }
  const cct::tuner::OutsideResult found =
      cct::tuner::judge_outside(library, profiled, profile, cct::test::registry());
  REQUIRE(found.levels.threshold > kFast);
  REQUIRE(found.levels.threshold < kSlow);
  CHECK(found.runs == 6);
  CHECK(found.slow_share_library == Approx(1.0 / 3));
  CHECK(found.slow_share_profile == Approx(1.0 / 3));
  CHECK(found.kept == 10);
  CHECK(found.calibration[0] == Approx(1.1));
  CHECK(found.calibration[1] == Approx(1.1));
  const auto& at_1k = figure_at(found, 1024);
  CHECK(at_1k.pick == "knomial(radix=4)");
  CHECK(at_1k.library_s == Approx(2e-6));
  CHECK(at_1k.profile_s == Approx(2.4e-6));
  CHECK(at_1k.runs == 2);
  CHECK(at_1k.refuted());  // the medians over every run (0.88 us against 1) would keep it
  const auto& at_2k = figure_at(found, 2048);
  CHECK_FALSE(at_2k.refuted());
  CHECK(at_2k.profile_s / at_2k.library_s == Approx(0.8));
  CHECK(found.picks == 2);
  CHECK(found.refuted == 1);
  // The kept points keep every run's medians: what a user sees.
  CHECK(figure_at(found, 8).profile_s / figure_at(found, 8).library_s == Approx(1.1));
}

TEST_CASE("the outside check has seen both levels where each side has two runs at each",
          "[tuner]") {
  using cct::tuner::both_levels_seen;
  const auto runs = [](int fast, int slow) {
    std::vector<BenchRun> out;
    for (int i = 0; i < fast + slow; ++i) out.push_back(run(i >= fast, 1, 1e-6, 1e-6));
    return out;
  };
  CHECK(both_levels_seen(runs(5, 2), runs(4, 3)));
  // The profile's side drew the slow level once: not yet.
  CHECK_FALSE(both_levels_seen(runs(4, 3), runs(6, 1)));
  CHECK_FALSE(both_levels_seen(runs(1, 6), runs(3, 4)));
  // One level: nothing more to see.
  CHECK(both_levels_seen(runs(7, 0), runs(7, 0)));
  // A run counts at the level of most of its points.
  std::vector<BenchRun> mixed = runs(5, 0);
  for (BenchRun& r : std::span(mixed).first(2))
    for (auto& [point, timed] : r.figures)
      if (point.second <= 256) timed.probe = kSlow;  // 9 of its 12 points
  CHECK(both_levels_seen(runs(3, 2), mixed));
  for (auto& [point, timed] : mixed[1].figures) timed.probe = kFast;
  CHECK_FALSE(both_levels_seen(runs(3, 2), mixed));
  // Runs with a few points at the slow level are runs at the fast one.
  std::vector<BenchRun> few = runs(5, 0);
  for (BenchRun& r : std::span(few).first(3))
    for (auto& [point, timed] : r.figures)
      if (point.second >= 512) timed.probe = kSlow;  // 3 of its 12 points
  CHECK_FALSE(both_levels_seen(runs(3, 2), few));
}

TEST_CASE("without levels a pick is judged on every run's medians", "[tuner]") {
  const cct::Profile profile =
      cct::profile_from_yaml(kProfile, "levels.yaml", &cct::test::registry());
  std::vector<BenchRun> library, profiled;
  for (int i = 0; i < 5; ++i) {
    library.push_back(run(false, 1, 1e-6, 1e-6));
    profiled.push_back(run(false, 1, i < 3 ? 0.9e-6 : 1.3e-6, 0.98e-6));
  }
  const cct::tuner::OutsideResult found =
      cct::tuner::judge_outside(library, profiled, profile, cct::test::registry());
  CHECK(found.levels.threshold == 0);
  CHECK(figure_at(found, 1024).profile_s == Approx(0.9e-6));
  CHECK_FALSE(figure_at(found, 1024).refuted());
  CHECK(figure_at(found, 2048).refuted());  // 2% faster: a tie, the library's
  CHECK(found.geometric_mean < 1);
}
