#include "tuner/pattern_figures.hpp"

#include <algorithm>

namespace cct::tuner {
namespace {

// Each pattern's reference figure: the library's, else the fastest.
std::vector<double> references(std::span<const std::vector<PointResult>> by_pattern,
                               std::optional<std::size_t> library) {
  std::vector<double> out;
  for (std::size_t p = 0; p < by_pattern.front().size(); ++p) {
    double r = by_pattern[library.value_or(0)][p].median_s;
    if (!library)
      for (const std::vector<PointResult>& c : by_pattern) r = std::min(r, c[p].median_s);
    out.push_back(r);
  }
  return out;
}

}  // namespace

std::vector<PointResult> worst_pattern_figures(std::span<const std::vector<PointResult>> by_pattern,
                                               std::optional<std::size_t> library) {
  std::vector<PointResult> out;
  if (by_pattern.front().size() == 1) {
    for (const std::vector<PointResult>& c : by_pattern) out.push_back(c.front());
    return out;
  }
  const std::vector<double> reference = references(by_pattern, library);
  double reference_sum = 0;
  for (double r : reference) reference_sum += r;
  for (const std::vector<PointResult>& c : by_pattern) {
    PointResult sum;
    double worst = 0;
    for (std::size_t p = 0; p < c.size(); ++p) {
      worst = std::max(worst, reference[p] > 0 ? c[p].median_s / reference[p] : 1.0);
      sum.median_s += c[p].median_s;
      sum.min_s += c[p].min_s;
      sum.max_s += c[p].max_s;
      sum.reps += c[p].reps;
    }
    // The candidate's own spread, scaled to its worst-pattern figure.
    const double scale = sum.median_s > 0 ? worst * reference_sum / sum.median_s : 1.0;
    out.push_back({.median_s = sum.median_s * scale,
                   .min_s = sum.min_s * scale,
                   .max_s = sum.max_s * scale,
                   .reps = sum.reps});
  }
  return out;
}

}  // namespace cct::tuner
