#include "tuner/plot_axis.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "cct/units.hpp"

namespace cct::tuner {
namespace {

// At most this many ticks on a bytes axis: more would not fit their labels.
constexpr int kMostBytesTicks = 9;
// Over up to this many decades, a log axis ticks 1, 2 and 5 in each.
constexpr int kFineDecades = 2;
// About this many steps on a linear axis.
constexpr int kLinearSteps = 5;

// A tick's figure with as many decimals as its size needs: 0.05, 0.2, 20.
std::string figure_text(double value, double magnitude) {
  const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(magnitude) + 1e-9)));
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::vector<double> positives(std::span<const double> values) {
  std::vector<double> out;
  std::copy_if(values.begin(), values.end(), std::back_inserter(out),
               [](double v) { return v > 0; });
  return out;
}

}  // namespace

double Axis::fraction(double value) const {
  if (!log) return (value - lo) / (hi - lo);
  if (value <= 0) return 0;
  return (std::log(value) - std::log(lo)) / (std::log(hi) - std::log(lo));
}

Axis bytes_axis(std::span<const double> bytes) {
  const std::vector<double> sizes = positives(bytes);
  const auto [least, most] =
      sizes.empty() ? std::pair{1.0, 1.0}
                    : std::pair{*std::ranges::min_element(sizes), *std::ranges::max_element(sizes)};
  const int lo_exp = static_cast<int>(std::floor(std::log2(least)));
  // One power of two beyond the largest size: room for what holds from it up.
  const int hi_exp = static_cast<int>(std::ceil(std::log2(most))) + 1;
  const int step = std::max(1, (hi_exp - lo_exp + kMostBytesTicks - 2) / (kMostBytesTicks - 1));
  Axis axis{.log = true,
            .lo = std::ldexp(1.0, lo_exp),
            .hi = std::ldexp(1.0, hi_exp),
            .zero = std::ranges::find(bytes, 0.0) != bytes.end()};
  if (axis.zero) {
    axis.lo = std::ldexp(1.0, lo_exp - step);
    axis.ticks.push_back({0, "0"});
  }
  for (int e = lo_exp; e <= hi_exp; ++e)
    if (e % step == 0) axis.ticks.push_back({std::ldexp(1.0, e), format_bytes(int64_t{1} << e)});
  return axis;
}

Axis log_axis(std::span<const double> values) {
  const std::vector<double> figures = positives(values);
  const auto [least, most] = figures.empty() ? std::pair{1.0, 1.0}
                                             : std::pair{*std::ranges::min_element(figures),
                                                         *std::ranges::max_element(figures)};
  const int lo_dec = static_cast<int>(std::floor(std::log10(least)));
  const int hi_dec = std::max(static_cast<int>(std::ceil(std::log10(most))), lo_dec + 1);
  Axis axis{.log = true, .lo = std::pow(10.0, lo_dec), .hi = std::pow(10.0, hi_dec)};
  const std::vector<double> mantissas =
      hi_dec - lo_dec <= kFineDecades ? std::vector<double>{1, 2, 5} : std::vector<double>{1};
  for (int d = lo_dec; d <= hi_dec; ++d)
    for (double m : mantissas)
      if (const double v = m * std::pow(10.0, d); v <= axis.hi * (1 + 1e-9))
        axis.ticks.push_back({v, figure_text(v, v)});
  return axis;
}

Axis linear_axis(std::span<const double> values, double also) {
  double lo = also, hi = also;
  for (double v : values) lo = std::min(lo, v), hi = std::max(hi, v);
  if (hi == lo) hi = lo + 1;
  const double raw = (hi - lo) / kLinearSteps;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * magnitude;
  for (double m : {1.0, 2.0, 5.0})
    if (m * magnitude >= raw) {
      step = m * magnitude;
      break;
    }
  const long first = std::lround(std::floor(lo / step));
  const long last = std::lround(std::ceil(hi / step));
  Axis axis{.log = false, .lo = first * step, .hi = last * step};
  for (long i = first; i <= last; ++i)
    axis.ticks.push_back({i * step, figure_text(i * step, step)});
  return axis;
}

}  // namespace cct::tuner
