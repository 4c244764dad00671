// ccautotune tuner: the axes of the report's plots: where a value lies
// along an axis, and ticks a reader can take in at a glance.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace cct::tuner {

struct Tick {
  double value = 0;
  std::string text;
};

// One axis of a plot: a domain, its scale, and its ticks.
struct Axis {
  bool log = false;
  // The domain, lo < hi; positive on a log axis.
  double lo = 0;
  double hi = 1;
  // A log axis holding zero (a barrier moves no bytes) draws it at its low
  // end, one tick step below the smallest positive value, ticked "0".
  bool zero = false;
  std::vector<Tick> ticks;

  // Where value lies, 0 at lo and 1 at hi.
  double fraction(double value) const;
};

// Message sizes in bytes, on a log axis up to twice the largest (the room
// for a profile's last range, which holds from the largest size up): ticks
// at powers of two (every second, third... so that there are at most 9),
// written as profiles write sizes (1, 64, 1k, 64k, 1M); zero allowed.
Axis bytes_axis(std::span<const double> bytes);
// Positive times (or any positive figure) on a log axis from the decade
// below the least to the decade above the most: ticks at 1, 2 and 5 times
// a power of ten over up to 2 decades, at powers of ten beyond.
Axis log_axis(std::span<const double> values);
// Any figures on a linear axis that also holds `also` (the 1 of a ratio):
// about 5 ticks at 1, 2 or 5 times a power of ten.
Axis linear_axis(std::span<const double> values, double also);

}  // namespace cct::tuner
