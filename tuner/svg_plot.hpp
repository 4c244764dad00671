// ccautotune tuner: a plot as inline SVG, for the report: lines of points
// over two axes (plot_axis.hpp), shaded bands along x, a legend. Nothing
// but the SVG text: no script, no style sheet, no font to fetch.
//
// Each series is a <g class="series"> (its line, whiskers and marks); the
// whole is an <svg class="plot">: the report's test finds them by these.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tuner/plot_axis.hpp"

namespace cct::tuner {

struct PlotPoint {
  double x = 0;
  double y = 0;
  // The whisker: the spread of the figure (min to max); none where equal
  // to y. Cut off at the plot's edges, where the axis does not reach.
  double y_lo = 0;
  double y_hi = 0;
};

// A point drawn on its own, not joined: its shape says what it is.
enum class Mark {
  kDiamond,  // on the line: a size measured between two others (a crossover)
  kCross,    // an off-grid check
  kFaint,    // a figure not on the line (a pruned candidate's screening)
  kSquare,   // a figure not on the line, timed as programs call (a confirmation)
};

struct PlotMark {
  PlotPoint point;
  Mark mark = Mark::kCross;
};

struct PlotSeries {
  std::string name;
  std::size_t style = 0;        // its colour and dashes: see series_colour
  std::vector<PlotPoint> line;  // joined in x order, each with a dot and its whisker
  std::vector<PlotMark> marks;
};

// A stretch of x, shaded in the colour of a series (none: grey) and
// labelled where wide enough; a dashed line where one band meets the next.
struct PlotBand {
  double lo = 0;
  double hi = 0;
  std::string label;
  std::optional<std::size_t> style;  // a series' style
};

struct Plot {
  std::string title;
  std::string x_label;
  std::string y_label;
  Axis x;
  Axis y;
  std::vector<PlotSeries> series;
  std::vector<PlotBand> bands;
  std::optional<double> y_rule;  // a horizontal line across the plot (the 1 of a ratio)
};

// The plot as an <svg> element; every text in it escaped.
std::string svg_plot(const Plot& plot);

// The colour of a series' style ("#1f77b4"), for legends outside the plot:
// ten colours, then the same again dashed, then dotted.
std::string series_colour(std::size_t style);

}  // namespace cct::tuner
