// ccautotune tuner: one figure per candidate of a vector collective whose
// candidates were timed in each count pattern apart.
//
// A program calls a vector collective with blocks the tuner cannot know
// (equal, or skewed to one rank), and the profile chooses by size alone,
// so a pick must hold in every pattern, not on their sum. Measured here
// (np 2): two_level allgatherv of 256 KiB beat the library on the sum of an
// equal and a skewed call, in two jobs, and was 2.3-3.8x slower than the
// library in an OSU-style loop, which passes equal blocks.
//
// So each candidate competes with its worst pattern: its figure is its
// largest ratio, over the patterns, to a reference, times the reference's
// sum. The reference is the library's own call where it is a candidate
// (an algorithm then replaces the library only where it is faster in every
// pattern: do no harm), else the fastest candidate of each pattern (the
// winner is the one whose worst pattern loses least). The reference keeps
// the sum of its figures, as when the patterns were timed together; a
// candidate's fastest and slowest repetitions scale with its median, so
// the winners' noise margin (tie_margin) sees the spread of its own
// figures.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "tuner/measure.hpp"

namespace cct::tuner {

// by_pattern[c][p]: candidate c's figure in pattern p; every candidate has
// the same patterns, in the same order (at least one). library: the index
// of the library's own call among the candidates, if it is one. One figure
// per candidate, in their order; with one pattern, the figures themselves.
std::vector<PointResult> worst_pattern_figures(std::span<const std::vector<PointResult>> by_pattern,
                                               std::optional<std::size_t> library);

}  // namespace cct::tuner
