#include "tuner/svg_plot.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <sstream>

#include "tuner/markup.hpp"

namespace cct::tuner {
namespace {

// Colours a reader can tell apart (matplotlib's ten), then the same with
// dashes: a plot of more series is read from its legend anyway.
constexpr std::array<const char*, 10> kColours{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                               "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                                               "#bcbd22", "#17becf"};
constexpr std::array<const char*, 3> kDashes{"", "6 3", "2 2"};

// The frame, in SVG units: the plot area, with room for the title above,
// the ticks and axis labels left and below, and the legend on the right.
constexpr double kWidth = 900;
constexpr double kLeft = 70;
constexpr double kRight = 640;
constexpr double kTop = 36;
constexpr double kMinHeight = 380;
constexpr double kBelow = 52;       // under the plot area: tick labels and the x label
constexpr double kLegendRow = 16;   // one legend line
constexpr double kCharWidth = 6.2;  // of the 11px font, to see whether a band's label fits
constexpr double kBandOpacity = 0.13;

std::string num(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", v);
  return text;
}

// Where data lands in the plot area.
struct Frame {
  const Plot& plot;
  double bottom;
  double x(double v) const { return kLeft + plot.x.fraction(v) * (kRight - kLeft); }
  double y(double v) const { return bottom - plot.y.fraction(v) * (bottom - kTop); }
  // y, kept inside the plot area: for whiskers, which may reach beyond it.
  double y_inside(double v) const { return std::clamp(y(v), kTop, bottom); }
};

std::string dash_attr(std::size_t style) {
  const char* dash = kDashes[(style / kColours.size()) % kDashes.size()];
  return *dash ? std::string(" stroke-dasharray=\"") + dash + "\"" : "";
}

std::string text(double x, double y, const std::string& words, const std::string& attrs = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\"" + attrs + ">" + escape_markup(words) +
         "</text>\n";
}

void draw_bands(const Frame& f, std::ostringstream& out) {
  for (std::size_t i = 0; i < f.plot.bands.size(); ++i) {
    const PlotBand& band = f.plot.bands[i];
    const double lo = std::max(f.x(band.lo), kLeft), hi = std::min(f.x(band.hi), kRight);
    if (hi <= lo) continue;
    const std::string colour = band.style ? series_colour(*band.style) : "#999999";
    out << "<rect class=\"band\" x=\"" << num(lo) << "\" y=\"" << kTop << "\" width=\""
        << num(hi - lo) << "\" height=\"" << num(f.bottom - kTop) << "\" fill=\"" << colour
        << "\" fill-opacity=\"" << kBandOpacity << "\"/>\n";
    if (hi - lo >= kCharWidth * band.label.size() + 6)
      out << text((lo + hi) / 2, kTop + 12, band.label, " text-anchor=\"middle\"");
    if (i > 0)
      out << "<line class=\"crossover\" x1=\"" << num(lo) << "\" x2=\"" << num(lo) << "\" y1=\""
          << kTop << "\" y2=\"" << num(f.bottom)
          << "\" stroke=\"#555\" stroke-dasharray=\"4 3\"/>\n";
  }
}

void draw_axes(const Frame& f, std::ostringstream& out) {
  for (const Tick& t : f.plot.x.ticks) {
    const double x = f.x(t.value);
    out << "<line x1=\"" << num(x) << "\" x2=\"" << num(x) << "\" y1=\"" << kTop << "\" y2=\""
        << num(f.bottom) << "\" stroke=\"#e4e4e4\"/>\n"
        << text(x, f.bottom + 16, t.text, " text-anchor=\"middle\"");
  }
  for (const Tick& t : f.plot.y.ticks) {
    const double y = f.y(t.value);
    out << "<line x1=\"" << kLeft << "\" x2=\"" << kRight << "\" y1=\"" << num(y) << "\" y2=\""
        << num(y) << "\" stroke=\"#e4e4e4\"/>\n"
        << text(kLeft - 6, y + 4, t.text, " text-anchor=\"end\"");
  }
  if (f.plot.y_rule) {
    const double y = f.y(*f.plot.y_rule);
    out << "<line x1=\"" << kLeft << "\" x2=\"" << kRight << "\" y1=\"" << num(y) << "\" y2=\""
        << num(y) << "\" stroke=\"#000\" stroke-width=\"1.2\"/>\n";
  }
  out << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << kRight - kLeft
      << "\" height=\"" << num(f.bottom - kTop) << "\" fill=\"none\" stroke=\"#333\"/>\n"
      << text((kLeft + kRight) / 2, f.bottom + 38, f.plot.x_label, " text-anchor=\"middle\"")
      << text(16, (kTop + f.bottom) / 2, f.plot.y_label,
              " text-anchor=\"middle\" transform=\"rotate(-90 16 " + num((kTop + f.bottom) / 2) +
                  ")\"");
}

// The shape of a mark centred on (x, y), as a path.
std::string mark_path(Mark mark, double x, double y) {
  const std::string cx = num(x), cy = num(y);
  switch (mark) {
    case Mark::kDiamond:
      return "M" + cx + " " + num(y - 5) + "L" + num(x + 5) + " " + cy + "L" + cx + " " +
             num(y + 5) + "L" + num(x - 5) + " " + cy + "Z";
    case Mark::kCross:
      return "M" + num(x - 4) + " " + num(y - 4) + "L" + num(x + 4) + " " + num(y + 4) + "M" +
             num(x - 4) + " " + num(y + 4) + "L" + num(x + 4) + " " + num(y - 4);
    case Mark::kFaint: return "M" + num(x - 2) + " " + cy + "a2 2 0 1 0 4 0a2 2 0 1 0 -4 0";
    case Mark::kSquare: return "M" + num(x - 4) + " " + num(y - 4) + "h8v8h-8Z";
  }
  return "";
}

void draw_series(const Frame& f, const PlotSeries& s, std::ostringstream& out) {
  const std::string colour = series_colour(s.style);
  out << "<g class=\"series\" stroke=\"" << colour << "\" fill=\"" << colour << "\">\n";
  std::vector<PlotPoint> line = s.line;
  std::ranges::sort(line, {}, &PlotPoint::x);
  std::string path, whiskers;
  for (const PlotPoint& p : line) {
    path += (path.empty() ? "M" : "L") + num(f.x(p.x)) + " " + num(f.y(p.y));
    if (p.y_lo != p.y || p.y_hi != p.y)
      whiskers +=
          "M" + num(f.x(p.x)) + " " + num(f.y_inside(p.y_lo)) + "V" + num(f.y_inside(p.y_hi));
  }
  if (!path.empty())
    out << "<path class=\"line\" d=\"" << path << "\" fill=\"none\" stroke-width=\"1.6\""
        << dash_attr(s.style) << "/>\n";
  if (!whiskers.empty())
    out << "<path d=\"" << whiskers << "\" fill=\"none\" stroke-opacity=\"0.45\"/>\n";
  for (const PlotPoint& p : line)
    out << "<circle cx=\"" << num(f.x(p.x)) << "\" cy=\"" << num(f.y(p.y)) << "\" r=\"2.5\"/>\n";
  for (const PlotMark& m : s.marks) {
    const bool faint = m.mark == Mark::kFaint;
    const bool hollow = m.mark == Mark::kCross || m.mark == Mark::kSquare;
    out << "<path d=\"" << mark_path(m.mark, f.x(m.point.x), f.y(m.point.y)) << "\""
        << (hollow ? " fill=\"none\" stroke-width=\"1.6\"" : "")
        << (faint ? " opacity=\"0.35\" stroke=\"none\"" : "") << "/>\n";
  }
  out << "</g>\n";
}

void draw_legend(const Plot& plot, std::ostringstream& out) {
  for (std::size_t i = 0; i < plot.series.size(); ++i) {
    const PlotSeries& s = plot.series[i];
    const double y = kTop + 8 + i * kLegendRow;
    out << "<line x1=\"" << kRight + 16 << "\" x2=\"" << kRight + 40 << "\" y1=\"" << num(y)
        << "\" y2=\"" << num(y) << "\" stroke=\"" << series_colour(s.style)
        << "\" stroke-width=\"2\"" << dash_attr(s.style) << "/>\n"
        << text(kRight + 46, y + 4, s.name);
  }
}

}  // namespace

std::string series_colour(std::size_t style) {
  return kColours[style % kColours.size()];
}

std::string svg_plot(const Plot& plot) {
  const double height =
      std::max(kMinHeight, kTop + 16 + kLegendRow * static_cast<double>(plot.series.size()));
  const Frame frame{plot, height - kBelow};
  std::ostringstream out;
  out << "<svg class=\"plot\" viewBox=\"0 0 " << kWidth << " " << num(height) << "\" width=\""
      << kWidth << "\" height=\"" << num(height)
      << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"
      << text(kLeft, 22, plot.title, " font-size=\"14\" font-weight=\"bold\"");
  draw_bands(frame, out);
  draw_axes(frame, out);
  for (const PlotSeries& s : plot.series) draw_series(frame, s, out);
  draw_legend(plot, out);
  out << "</svg>\n";
  return out.str();
}

}  // namespace cct::tuner
