#include "tuner/report_html.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <sstream>
#include <type_traits>

#include "cct/error.hpp"
#include "cct/units.hpp"
#include "tuner/accuracy.hpp"
#include "tuner/markup.hpp"
#include "tuner/svg_plot.hpp"
#include "tuner/utc_time.hpp"
#include "tuner/winners.hpp"

namespace cct::tuner {
namespace {

constexpr const char* kStyle = R"(
body { font-family: sans-serif; max-width: 960px; margin: 1em auto; padding: 0 1em; color: #222; }
h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 90%; }
th, td { border: 1px solid #ddd; padding: 2px 8px; text-align: left; vertical-align: top; }
td.figure { text-align: right; }
svg.plot { max-width: 100%; height: auto; }
.swatch { display: inline-block; width: 0.8em; height: 0.8em; margin-right: 0.4em; }
)";

// How the plots draw the rows of each stage: on the series' line, as a
// mark of their own, or both.
struct StageDrawing {
  Stage stage;
  bool on_line;
  std::optional<Mark> mark;
};
constexpr StageDrawing kStageDrawings[] = {
    {Stage::kFinal, true, std::nullopt},
    {Stage::kCrossover, true, Mark::kDiamond},
    {Stage::kCheck, false, Mark::kCross},
    {Stage::kPruned, false, Mark::kFaint},
    {Stage::kConfirm, false, Mark::kSquare},
    {Stage::kReconfirm, false, Mark::kSquare},
    {Stage::kRecheck, false, Mark::kCross},
    {Stage::kFailed, false, std::nullopt},  // no figure: counted, listed, not drawn
    {Stage::kTyped, false, std::nullopt},   // another element type's: counted, not drawn
    {Stage::kRooted, false, std::nullopt},  // another root's: counted, not drawn
};

constexpr const char* kHowToRead =
    "Lines join the medians of the full measurements (grid sizes, and the crossover sizes "
    "measured between two grid sizes with different winners, drawn as diamonds), with their "
    "min-max whiskers. Crosses are the off-grid checks of the profile (in both jobs); faint "
    "dots are the screening figures of candidates pruned by successive halving (not on the "
    "lines); hollow squares are the finalists timed again as programs call them, which decide "
    "their size. The shaded bands are the winner the profile built from these rows takes for "
    "each size range, in its series' colour, with a dashed line where it changes.";

struct Shape {
  std::string collective;
  std::string transport;
  int nodes = 1;
  int np = 0;
  bool operator==(const Shape&) const = default;
};

Shape shape_of(const ResultRow& r) {
  return {r.collective, r.transport, r.nodes, r.np};
}

std::string shape_title(const Shape& s) {
  return s.collective + " on " + s.transport + ": " + std::to_string(s.np) + " ranks on " +
         std::to_string(s.nodes) + (s.nodes == 1 ? " node" : " nodes");
}

// The anchor of a shape's plot: report.html#allreduce-shm-1-2 shows it.
std::string shape_id(const Shape& s) {
  return s.collective + "-" + s.transport + "-" + std::to_string(s.nodes) + "-" +
         std::to_string(s.np);
}

// items grouped by key, groups and their items in order of first appearance.
template <class Key, class T>
using Groups = std::vector<std::pair<Key, std::vector<T>>>;

template <class T, class KeyOf>
auto grouped(const std::vector<T>& items, KeyOf key_of) {
  using Key = std::remove_cvref_t<std::invoke_result_t<KeyOf, const T&>>;
  Groups<Key, T> groups;
  for (const T& item : items) {
    Key key = std::invoke(key_of, item);
    auto group = std::ranges::find(groups, key, [](const auto& g) { return g.first; });
    if (group == groups.end()) group = groups.insert(groups.end(), {key, {}});
    group->second.push_back(item);
  }
  return groups;
}

// A style per series name of one collective, so that an algorithm keeps
// its colour in every plot of the collective.
using Styles = std::map<std::string, std::size_t>;

Styles styles_of(const std::vector<ResultRow>& rows) {
  Styles styles;
  for (const ResultRow& r : rows) styles.emplace(r.choice(), styles.size());
  return styles;
}

std::optional<std::size_t> style_of(const Styles& styles, const std::string& name) {
  const auto it = styles.find(name);
  return it == styles.end() ? std::nullopt : std::optional{it->second};
}

PlotPoint point_of(const ResultRow& r) {
  return {.x = static_cast<double>(r.bytes),
          .y = r.result.median_s * 1e6,
          .y_lo = r.result.min_s * 1e6,
          .y_hi = r.result.max_s * 1e6};
}

std::vector<PlotSeries> series_of(const std::vector<ResultRow>& rows, const Styles& styles) {
  std::vector<PlotSeries> out;
  for (const auto& [name, members] : grouped(rows, &ResultRow::choice)) {
    PlotSeries s{.name = name, .style = styles.at(name)};
    for (const ResultRow& r : members) {
      const StageDrawing& how = *std::ranges::find(kStageDrawings, r.stage, &StageDrawing::stage);
      if (how.on_line) s.line.push_back(point_of(r));
      if (how.mark) s.marks.push_back({point_of(r), *how.mark});
    }
    out.push_back(std::move(s));
  }
  return out;
}

// The bucket of the rules built for this shape, of collective c; null where
// there is none (rows the registry did not accept).
const RankBucket* bucket_of(const std::map<cct_collective, TransportRules>& rules, cct_collective c,
                            const Shape& shape) {
  if (!rules.contains(c)) return nullptr;
  const auto transport = rules.at(c).find(shape.transport);
  if (transport == rules.at(c).end()) return nullptr;
  const auto bucket = std::ranges::find_if(transport->second, [&](const RankBucket& b) {
    return b.nodes == shape.nodes && b.measured_np == shape.np;
  });
  return bucket == transport->second.end() ? nullptr : &*bucket;
}

std::string size_range(const SizeRule& s) {
  return format_bytes(s.lo) + " to " + (s.hi == kMaxBytes ? "max" : format_bytes(s.hi));
}

std::vector<PlotBand> bands_of(const RankBucket& bucket, cct_collective c, const Registry& registry,
                               const Styles& styles) {
  std::vector<PlotBand> bands;
  for (const SizeRule& s : bucket.sizes) {
    const std::string choice = format_rule_choice(c, s, registry);
    bands.push_back({.lo = static_cast<double>(s.lo),
                     .hi = static_cast<double>(s.hi),
                     .label = choice,
                     .style = style_of(styles, choice)});
  }
  return bands;
}

void write_rules_table(const RankBucket& bucket, cct_collective c, const Registry& registry,
                       const Styles& styles, std::ostream& out) {
  out << "<table class=\"rules\"><tr><th>sizes (bytes)</th><th>winner</th>"
         "<th>median at its first size (µs)</th></tr>\n";
  for (const SizeRule& s : bucket.sizes) {
    const std::string choice = format_rule_choice(c, s, registry);
    const std::optional<std::size_t> style = style_of(styles, choice);
    out << "<tr><td>" << size_range(s) << "</td><td><span class=\"swatch\" style=\"background:"
        << (style ? series_colour(*style) : "#999") << "\"></span>" << escape_markup(choice)
        << "</td><td class=\"figure\">" << (s.median_s ? format_micros(*s.median_s) : "-")
        << "</td></tr>\n";
  }
  out << "</table>\n";
}

void write_shape(const Shape& shape, const std::vector<ResultRow>& rows, const Styles& styles,
                 const std::map<cct_collective, TransportRules>& rules, const Registry& registry,
                 std::ostream& out) {
  // The medians set the time axis: one slow repetition's maximum would
  // squeeze every line into the bottom of the plot; whiskers are cut off.
  std::vector<double> sizes, medians;
  for (const ResultRow& r : rows) {
    sizes.push_back(static_cast<double>(r.bytes));
    medians.push_back(r.result.median_s * 1e6);
  }
  Plot plot{.title = shape_title(shape),
            .x_label = "message size (bytes)",
            .y_label = "median time (µs)",
            .x = bytes_axis(sizes),
            .y = log_axis(medians),
            .series = series_of(rows, styles)};
  cct_collective c;
  const RankBucket* bucket =
      parse_collective(shape.collective, &c) ? bucket_of(rules, c, shape) : nullptr;
  if (bucket) plot.bands = bands_of(*bucket, c, registry, styles);
  out << "<section class=\"shape\" id=\"" << escape_markup(shape_id(shape)) << "\">\n"
      << svg_plot(plot);
  if (bucket)
    write_rules_table(*bucket, c, registry, styles, out);
  else
    out << "<p>No rules: the registry accepts none of these rows.</p>\n";
  out << "</section>\n";
}

std::string stage_counts(const std::vector<ResultRow>& rows) {
  std::string text;
  for (const StageDrawing& how : kStageDrawings) {
    const auto n = std::ranges::count(rows, how.stage, &ResultRow::stage);
    text += (text.empty() ? "" : ", ") + std::to_string(n) + " " + stage_name(how.stage);
  }
  return text;
}

void write_about(const ReportInput& input, const Winners& winners,
                 const std::map<cct_collective, TransportRules>& rules, const Registry& registry,
                 std::ostream& out) {
  const MachineInfo& m = input.machine;
  const auto line = [&](const std::string& name, const std::string& value) {
    out << "<tr><th>" << name << "</th><td>" << escape_markup(value) << "</td></tr>\n";
  };
  out << "<table class=\"about\">\n";
  line("machine", m.fingerprint.empty() ? "unknown" : m.fingerprint + " (" + m.summary + ")");
  line("results", input.results + ": " + std::to_string(input.rows.size()) + " rows (" +
                      stage_counts(input.rows) + ")");
  line("written", utc_now());
  line("made by", input.made_by);
  line("off-grid checks",
       describe(profile_accuracy(input.rows, Profile{.rules = rules}, registry)));
  if (const std::string kept = library_kept(rules, registry); !kept.empty()) line("library", kept);
  for (const std::string& why : winners.ignored) line("left out of the rules", why);
  for (const std::string& why : winners.one_rule) line("one rule", why);
  out << "</table>\n<p>" << kHowToRead << "</p>\n";
}

void write_bench(const BenchTable& bench, const std::string& source, std::ostream& out) {
  out << "<h2>Ratio to MPI</h2>\n<p>From the ccbench output " << escape_markup(source)
      << ": the time of the runtime's call over MPI's own, below 1 where the runtime is faster; "
         "one series per ratio column.</p>\n";
  for (const auto& [collective, rows] : grouped(bench.rows, &BenchRow::collective)) {
    std::vector<double> sizes, ratios;
    std::vector<PlotSeries> series;
    for (std::size_t i = 0; i < bench.series.size(); ++i) {
      PlotSeries s{.name = bench.series[i] + "/MPI", .style = i};
      for (const BenchRow& r : rows)
        if (!std::isnan(r.ratios[i])) {
          const double x = static_cast<double>(r.bytes);
          s.line.push_back({.x = x, .y = r.ratios[i], .y_lo = r.ratios[i], .y_hi = r.ratios[i]});
          sizes.push_back(x);
          ratios.push_back(r.ratios[i]);
        }
      if (!s.line.empty()) series.push_back(std::move(s));
    }
    if (series.empty()) continue;
    const Plot plot{.title = collective + ": time against MPI's",
                    .x_label = "message size (bytes)",
                    .y_label = "time / MPI's time",
                    .x = bytes_axis(sizes),
                    .y = linear_axis(ratios, 1),
                    .series = std::move(series),
                    .y_rule = 1};
    out << "<section class=\"bench\" id=\"ratio-" << escape_markup(collective) << "\">\n"
        << svg_plot(plot) << "</section>\n";
  }
}

}  // namespace

void write_report(const ReportInput& input, const Registry& registry, std::ostream& out) {
  const Winners winners = pick_winners(input.rows, registry);
  const std::map<cct_collective, TransportRules> rules = build_rules(winners.best);
  const std::string title =
      "ccautotune report" +
      (input.machine.fingerprint.empty() ? "" : ": " + input.machine.fingerprint);
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
      << escape_markup(title) << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n<h1>"
      << escape_markup(title) << "</h1>\n";
  write_about(input, winners, rules, registry, out);
  for (const auto& [collective, rows] : grouped(input.rows, &ResultRow::collective)) {
    out << "<h2>" << escape_markup(collective) << "</h2>\n";
    const Styles styles = styles_of(rows);
    for (const auto& [shape, shape_rows] : grouped(rows, shape_of))
      write_shape(shape, shape_rows, styles, rules, registry, out);
  }
  if (input.bench) write_bench(*input.bench, input.bench_source, out);
  out << "</body>\n</html>\n";
}

}  // namespace cct::tuner
