#include "tuner/predict.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <set>
#include <sstream>

#include "cct/error.hpp"
#include "cct/units.hpp"
#include "tuner/cost_model.hpp"
#include "tuner/scaling.hpp"
#include "tuner/shape_text.hpp"

namespace cct::tuner {
namespace {

// A pick within this much of the best counts as right (as in
// accuracy.hpp: timing noise).
constexpr double kWithin = 1.05;

// A prediction replaces the measured neighbour's winner only where it is
// faster by more than the model's error; this much where that error was
// not checked (tie_margin's upper bound).
constexpr double kUncheckedMargin = 0.10;

// How the model did where it could be checked.
struct ModelCheck {
  std::vector<double> errors;  // |predicted / measured - 1| of each figure
  std::size_t sizes = 0;       // (collective, message size) points picked
  std::size_t within = 0;      // of those, where the predicted pick was within 5% of the best
  double worst_ratio = 1;      // the predicted pick's measured figure / the best's
  std::string worst;           // where, e.g. "allgather np=16 256: bruck 1.40x ring"
  // How far behind the predicted pick the model put the measured best at
  // worst: its predicted figure / the pick's (checked_lag).
  double lag = 1;

  std::optional<double> median_error() const {
    if (errors.empty()) return std::nullopt;
    std::vector<double> sorted = errors;
    std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
    return sorted[sorted.size() / 2];
  }
  double worst_error() const {
    return errors.empty() ? 0 : *std::max_element(errors.begin(), errors.end());
  }
  void add(const ModelCheck& other) {
    errors.insert(errors.end(), other.errors.begin(), other.errors.end());
    sizes += other.sizes;
    within += other.within;
    if (other.worst_ratio > worst_ratio) worst_ratio = other.worst_ratio, worst = other.worst;
    lag = std::max(lag, other.lag);
  }
};
using Checks = std::map<cct_collective, ModelCheck>;

// The competing figures of one measured point and its winner.
struct Point {
  const Winner* best;
  const std::vector<Winner>* contenders;
};

// The shapes along which a transport's figures are predicted, one from
// another: the communicators on one node by their size (per_node 0), or
// those spanning nodes with per_node ranks on each by their node count. A
// shape of the series is its step: np on one node, the node count across.
struct Series {
  int per_node = 0;

  int nodes_at(int step) const { return per_node == 0 ? 1 : step; }
  int np_at(int step) const { return per_node == 0 ? step : step * per_node; }
  // For people: "np=16", "np=8 (4 nodes)".
  std::string shape_at(int step) const { return shape_text(nodes_at(step), np_at(step)); }
  auto operator<=>(const Series&) const = default;
};

Series series_of(const Winner& w) {
  return {.per_node = w.nodes == 1 ? 0 : w.np / w.nodes};
}
int step_of(const Winner& w) {
  return w.nodes == 1 ? w.np : w.nodes;
}

// (collective, step, message size) of one series' points.
using PointKey = std::tuple<cct_collective, int, int64_t>;
using Points = std::map<PointKey, Point>;

// By transport, then series.
std::map<std::string, std::map<Series, Points>> points_by_series(const Winners& measured) {
  std::map<std::string, std::map<Series, Points>> out;
  for (std::size_t i = 0; i < measured.best.size(); ++i) {
    const Winner& w = measured.best[i];
    if (w.np % w.nodes == 0)  // a shape across nodes with as many ranks on each
      out[w.transport][series_of(w)][{w.collective, step_of(w), w.bytes}] = {
          &w, &measured.contenders[i]};
  }
  return out;
}

std::set<int> measured_steps(const Points& points) {
  std::set<int> steps;
  for (const auto& [key, point] : points) steps.insert(std::get<1>(key));
  return steps;
}

// The figures of a point the model is fitted on: its kFitted fastest
// contenders. The model must rank the candidates that compete for the
// pick; fitted on every candidate of an exhaustive search (the
// simulator's), the slow ones outweigh them.
constexpr std::size_t kFitted = 3;
std::vector<const Winner*> fitted(const std::vector<Winner>& contenders) {
  std::vector<const Winner*> out;
  for (const Winner& w : contenders) out.push_back(&w);
  std::ranges::sort(out, {}, &Winner::median_s);
  if (out.size() > kFitted) out.resize(kFitted);
  return out;
}

// The model fitted on each point's fastest figures at steps up to most.
CostModel fit_up_to(const Points& points, int most, Coster& coster) {
  std::vector<CostSample> samples;
  for (const auto& [key, point] : points)
    if (std::get<1>(key) <= most)
      for (const Winner* w : fitted(*point.contenders))
        if (std::optional<CostSample> s = coster.at(*w)) samples.push_back(std::move(*s));
  return CostModel::fit(samples);
}

const Point* point_at(const Points& points, cct_collective c, int step, int64_t bytes) {
  const auto it = points.find({c, step, bytes});
  return it == points.end() ? nullptr : &it->second;
}

const Winner* find_choice(const std::vector<Winner>& rows, const std::string& choice) {
  for (const Winner& w : rows)
    if (w.choice == choice) return &w;
  return nullptr;
}

// The contenders of a measured point, their figures scaled to the
// series' shape at `step` (scaled_figure), with `below` the same point
// at another measured step, or null: those whose cost the model can
// scale.
std::vector<Winner> scaled(const Point& from, const Point* below, const Series& series, int step,
                           const CostModel& model, Coster& coster) {
  std::vector<Winner> out;
  const int nodes = series.nodes_at(step), np = series.np_at(step);
  for (const Winner& w : *from.contenders) {
    const Winner* lower = below ? find_choice(*below->contenders, w.choice) : nullptr;
    const std::optional<double> figure = scaled_figure(w, lower, nodes, np, model, coster);
    if (!figure) continue;
    Winner p = w;
    p.nodes = nodes;
    p.np = np;
    p.min_s = w.min_s * *figure / w.median_s;
    p.median_s = *figure;
    p.fallbacks.clear();
    out.push_back(std::move(p));
  }
  return out;
}

const Winner* fastest(const std::vector<Winner>& rows) {
  const auto it = std::min_element(rows.begin(), rows.end(), [](const Winner& a, const Winner& b) {
    return a.median_s < b.median_s;
  });
  return it == rows.end() ? nullptr : &*it;
}

// Predicts each point at `step` from the one at `from` (and at `slope`,
// where given) and compares with what was measured there.
void check_step(const Points& points, const Series& series, int from, std::optional<int> slope,
                int step, const CostModel& model, Coster& coster, Checks& checks) {
  for (const auto& [key, point] : points) {
    const auto [c, at_step, bytes] = key;
    if (at_step != from) continue;
    const Point* target = point_at(points, c, step, bytes);
    if (target == nullptr) continue;
    ModelCheck& check = checks[c];
    const std::vector<Winner>& measured = *target->contenders;
    const Point* other = slope ? point_at(points, c, *slope, bytes) : nullptr;
    std::vector<Winner> predicted;  // of the candidates measured at both steps
    for (Winner& p : scaled(point, other, series, step, model, coster))
      if (const Winner* m = find_choice(measured, p.choice)) {
        check.errors.push_back(std::abs(p.median_s / m->median_s - 1));
        predicted.push_back(std::move(p));
      }
    const Winner* pick = fastest(predicted);
    if (pick == nullptr) continue;
    const Winner* best = nullptr;
    for (const Winner& p : predicted)
      if (const Winner* m = find_choice(measured, p.choice); !best || m->median_s < best->median_s)
        best = m;
    const double ratio = find_choice(measured, pick->choice)->median_s / best->median_s;
    check.lag =
        std::max(check.lag, find_choice(predicted, best->choice)->median_s / pick->median_s);
    ++check.sizes;
    if (ratio <= kWithin) ++check.within;
    if (ratio > check.worst_ratio) {
      check.worst_ratio = ratio;
      std::ostringstream where;
      where << collective_name(c) << " " << series.shape_at(step) << " " << format_bytes(bytes)
            << ": " << pick->choice << " " << std::fixed << std::setprecision(2) << ratio << "x "
            << best->choice;
      check.worst = where.str();
    }
  }
}

// The measured step a prediction for `step` starts from: the largest
// below it, else the smallest above.
int source_step(const std::set<int>& measured, int step) {
  const auto above = measured.upper_bound(step);
  return above == measured.begin() ? *above : *std::prev(above);
}

// The measured step whose figures give, with from's, a candidate's slope
// (scaled_figure): the next one past from towards step (the line then
// interpolates), else the one on the other side; none where only from was
// measured.
std::optional<int> slope_step(const std::set<int>& measured, int from, int step) {
  const auto it = measured.find(from);
  const bool has_next = std::next(it) != measured.end(), has_prev = it != measured.begin();
  if (step > from && has_next) return *std::next(it);
  if (has_prev) return *std::prev(it);
  if (has_next) return *std::next(it);
  return std::nullopt;
}

// Each measured step predicted as if it had not been measured, from those
// below it, by a model fitted on them alone; per collective.
Checks check_model(const Points& points, const Series& series, Coster& coster) {
  Checks checks;
  const std::set<int> steps = measured_steps(points);
  std::set<int> below;
  for (auto it = steps.begin(); it != steps.end() && std::next(it) != steps.end(); ++it) {
    below.insert(*it);
    check_step(points, series, *it, slope_step(below, *it, *std::next(it)), *std::next(it),
               fit_up_to(points, *it, coster), coster, checks);
  }
  return checks;
}

// The predicted winner of one point: the measured winner where it states
// no cost (the library's call), else the fastest predicted; its fallbacks
// from the predicted figures (with the library's measured one).
std::optional<Winner> predicted_winner(const Point& from, const Point* other, const Series& series,
                                       int step, double margin, const CostModel& model,
                                       Coster& coster) {
  std::vector<Winner> rows = scaled(from, other, series, step, model, coster);
  const Winner* pick = fastest(rows);
  if (!coster.at(*from.best)) pick = from.best;
  if (pick == nullptr) return std::nullopt;
  if (const Winner* kept = find_choice(rows, from.best->choice);
      kept && kept->median_s <= pick->median_s * (1 + margin))
    pick = kept;
  Winner out = *pick;  // before rows grow: pick may point into them
  out.nodes = series.nodes_at(step);
  out.np = series.np_at(step);
  for (const Winner& w : *from.contenders)
    if (w.library && !find_choice(rows, w.choice)) rows.push_back(w);
  std::vector<const Winner*> all;
  for (const Winner& w : rows) all.push_back(&w);
  out.fallbacks = fallbacks_of(out, all);
  return out;
}

std::string percent(double fraction) {
  return std::to_string(std::lround(fraction * 100)) + "%";
}

// "shm", "mpi, 2 ranks on each node".
std::string series_label(const std::string& transport, const Series& series) {
  return series.per_node == 0 ? transport
                              : transport + ", " + std::to_string(series.per_node) + " rank" +
                                    (series.per_node == 1 ? "" : "s") + " on each node";
}

std::string describe_model(const std::string& label, const CostModel& model) {
  std::ostringstream line;
  line << "cost model (" << label << "):";
  for (const CostModel::Term& t : model.terms())
    if (t.value > 0)
      line << " " << t.name << " " << std::setprecision(3)
           << (t.name.find("byte") != std::string::npos ? t.value * 1e9 : t.value * 1e6)
           << (t.name.find("byte") != std::string::npos ? " ns" : " us");
  return line.str() + "\n";
}

std::string describe_check(const std::string& label, const Series& series,
                           const ModelCheck& check) {
  const std::optional<double> median = check.median_error();
  if (!median)
    return "cost model (" + label + "): not checked: one " +
           (series.per_node == 0 ? "communicator size" : "node count") +
           " measured (measure two or more to check it)\n";
  std::ostringstream line;
  line << "cost model (" << label << ") checked on each measured "
       << (series.per_node == 0 ? "size" : "node count")
       << " from those below: " << check.errors.size() << " figures, time error median "
       << percent(*median) << ", worst " << percent(check.worst_error())
       << "; the model's own pick within 5% of the best at " << check.within << " of "
       << check.sizes << " sizes";
  if (check.worst_ratio > kWithin)
    line << ", worst " << std::fixed << std::setprecision(2) << check.worst_ratio << "x ("
         << check.worst << ")";
  return line.str() + "\n";
}

// The steps of the plan for a series: its communicator sizes on one node,
// its node counts (2 or more) across nodes.
std::vector<int> planned_steps(const PredictionPlan& plan, const Series& series) {
  if (series.per_node == 0) return plan.nps;
  std::vector<int> steps;
  for (int nodes : plan.nodes)
    if (nodes > 1) steps.push_back(nodes);
  return steps;
}

void predict_series(const std::string& transport, const Series& series, const Points& points,
                    const PredictionPlan& plan, Coster& coster, Predictions& out) {
  const std::string label = series_label(transport, series);
  const std::set<int> measured = measured_steps(points);
  const CostModel model = fit_up_to(points, *measured.rbegin(), coster);
  Checks checks = check_model(points, series, coster);
  ModelCheck overall;
  for (const auto& [c, check] : checks) overall.add(check);
  out.report += describe_model(label, model) + describe_check(label, series, overall);
  std::set<int> predicted_steps;
  for (int step : planned_steps(plan, series)) {
    if (measured.contains(step) || step < 1) continue;
    const int from = source_step(measured, step);
    const std::optional<int> slope = slope_step(measured, from, step);
    for (const auto& [key, point] : points) {
      const auto [c, at_step, bytes] = key;
      if (at_step != from) continue;
      const std::optional<double> error = checks[c].median_error();
      const Point* other = slope ? point_at(points, c, *slope, bytes) : nullptr;
      std::optional<Winner> w = predicted_winner(point, other, series, step,
                                                 error.value_or(kUncheckedMargin), model, coster);
      if (!w) continue;
      out.winners.push_back(std::move(*w));
      out.buckets[{c, transport, series.nodes_at(step), series.np_at(step)}] =
          Prediction{.np = series.np_at(step),
                     .from_np = series.np_at(from),
                     .from_nodes = series.nodes_at(from),
                     .error = error};
      predicted_steps.insert(step);
    }
  }
  if (predicted_steps.empty()) return;
  out.report += "predicted (" + label + "): " + (series.per_node == 0 ? "np" : "nodes");
  for (int step : predicted_steps) out.report += " " + std::to_string(step);
  out.report += ", from the measured " + std::string(series.per_node == 0 ? "np" : "node count") +
                " nearest each; a prediction replaces that one's pick only where it is faster "
                "by more than the model's checked error\n";
}

// The order of Winners::best: collective, transport, nodes, np, bytes.
bool before(const Winner& a, const Winner& b) {
  return std::tie(a.collective, a.transport, a.nodes, a.np, a.bytes) <
         std::tie(b.collective, b.transport, b.nodes, b.np, b.bytes);
}

}  // namespace

std::optional<double> checked_lag(const Winners& measured, const Registry& registry,
                                  const ShapeOf& shape, const std::string& transport) {
  const auto by_series = points_by_series(measured);
  const auto it = by_series.find(transport);
  if (it == by_series.end() || !it->second.contains(Series{})) return std::nullopt;
  Coster coster(registry, shape);
  ModelCheck overall;
  for (const auto& [c, check] : check_model(it->second.at(Series{}), Series{}, coster))
    overall.add(check);
  if (overall.sizes == 0) return std::nullopt;
  return overall.lag;
}

Predictions predict(const Winners& measured, const Registry& registry, const PredictionPlan& plan) {
  Predictions out;
  Coster coster(registry, plan.shape);
  for (const auto& [transport, by_series] : points_by_series(measured))
    for (const auto& [series, points] : by_series)
      predict_series(transport, series, points, plan, coster, out);
  std::stable_sort(out.winners.begin(), out.winners.end(), before);
  return out;
}

std::map<cct_collective, TransportRules> rules_with_predictions(const std::vector<Winner>& best,
                                                                const Predictions& predicted) {
  std::vector<Winner> all = best;
  all.insert(all.end(), predicted.winners.begin(), predicted.winners.end());
  std::stable_sort(all.begin(), all.end(), before);
  std::map<cct_collective, TransportRules> rules = build_rules(all);
  for (auto& [c, transports] : rules)
    for (auto& [transport, buckets] : transports)
      for (RankBucket& b : buckets) {
        if (!b.measured_np) continue;
        const auto it = predicted.buckets.find({c, transport, b.nodes, *b.measured_np});
        if (it == predicted.buckets.end()) continue;
        b.predicted = it->second;
        b.measured_np.reset();
      }
  return rules;
}

}  // namespace cct::tuner
