#include "tuner/latency_levels.hpp"

#include <algorithm>
#include <cmath>

namespace cct::tuner {

double median(std::vector<double> values) {
  std::ranges::sort(values);
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

namespace {

std::vector<double> seconds_at(const std::vector<Timed>& runs, const LatencyLevels& levels,
                               bool slow) {
  std::vector<double> out;
  for (const Timed& t : runs)
    if (levels.threshold == 0 || levels.slow(t.probe) == slow) out.push_back(t.seconds);
  return out;
}

}  // namespace

LatencyLevels find_levels(std::vector<double> probes) {
  std::erase_if(probes, [](double p) { return !(p > 0); });
  std::ranges::sort(probes);
  const std::size_t n = probes.size();
  const std::size_t fewest = std::max<std::size_t>(
      1, static_cast<std::size_t>(std::ceil(kLevelShare * static_cast<double>(n))));
  std::vector<double> prefix(n + 1, 0);  // sums of log figures
  for (std::size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + std::log(probes[i]);
  std::size_t split = 0;  // the first figure of the slow group; 0: none
  double best = 0;
  for (std::size_t i = fewest; i + fewest <= n; ++i) {
    const double low = prefix[i] / i, high = (prefix[n] - prefix[i]) / (n - i);
    const double between = static_cast<double>(i) * (n - i) * (high - low) * (high - low);
    if (between > best) best = between, split = i;
  }
  if (split == 0) return {};
  const std::vector<double> fast(probes.begin(), probes.begin() + split);
  const std::vector<double> slow(probes.begin() + split, probes.end());
  if (median(slow) < kLevelRatio * median(fast)) return {};
  return {.threshold = std::sqrt(probes[split - 1] * probes[split])};
}

std::optional<LevelFigures> at_level(const PointRuns& runs, const LatencyLevels& levels,
                                     bool slow) {
  std::vector<double> library = seconds_at(runs.library, levels, slow);
  std::vector<double> profile = seconds_at(runs.profile, levels, slow);
  const int fewer = static_cast<int>(std::min(library.size(), profile.size()));
  if (fewer < (levels.threshold == 0 ? 1 : kFewestAtLevel)) return std::nullopt;
  return LevelFigures{median(std::move(library)), median(std::move(profile)), fewer};
}

}  // namespace cct::tuner
