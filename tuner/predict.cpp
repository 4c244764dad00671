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
  }
};
using Checks = std::map<cct_collective, ModelCheck>;

// The competing figures of one measured point and its winner.
struct Point {
  const Winner* best;
  const std::vector<Winner>* contenders;
};
// (collective, np, message size) of one transport's single-node shapes.
using PointKey = std::tuple<cct_collective, int, int64_t>;
using Points = std::map<PointKey, Point>;

std::map<std::string, Points> points_by_transport(const Winners& measured) {
  std::map<std::string, Points> out;
  for (std::size_t i = 0; i < measured.best.size(); ++i) {
    const Winner& w = measured.best[i];
    if (w.nodes == 1)
      out[w.transport][{w.collective, w.np, w.bytes}] = {&w, &measured.contenders[i]};
  }
  return out;
}

std::set<int> measured_nps(const Points& points) {
  std::set<int> nps;
  for (const auto& [key, point] : points) nps.insert(std::get<1>(key));
  return nps;
}

// The model fitted on every competing figure at sizes up to most_np.
CostModel fit_up_to(const Points& points, int most_np, Coster& coster) {
  std::vector<CostSample> samples;
  for (const auto& [key, point] : points)
    if (std::get<1>(key) <= most_np)
      for (const Winner& w : *point.contenders)
        if (std::optional<CostSample> s = coster.at(w, w.np)) samples.push_back(std::move(*s));
  return CostModel::fit(samples);
}

const Point* point_at(const Points& points, cct_collective c, int np, int64_t bytes) {
  const auto it = points.find({c, np, bytes});
  return it == points.end() ? nullptr : &it->second;
}

const Winner* find_choice(const std::vector<Winner>& rows, const std::string& choice) {
  for (const Winner& w : rows)
    if (w.choice == choice) return &w;
  return nullptr;
}

// The contenders of a point measured at `from`, their figures scaled to np
// ranks (scaled_figure), with `below` the same point measured at the size
// below from's, or null: those whose cost the model can scale.
std::vector<Winner> scaled(const Point& from, const Point* below, int np, const CostModel& model,
                           Coster& coster) {
  std::vector<Winner> out;
  for (const Winner& w : *from.contenders) {
    const Winner* lower = below ? find_choice(*below->contenders, w.choice) : nullptr;
    const std::optional<double> figure = scaled_figure(w, lower, np, model, coster);
    if (!figure) continue;
    Winner p = w;
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

// Predicts each point of size `np` from the one at `from` (and at `slope`,
// where given: slope_np) and compares with what was measured there.
void check_step(const Points& points, int from, std::optional<int> slope, int np,
                const CostModel& model, Coster& coster, Checks& checks) {
  for (const auto& [key, point] : points) {
    const auto [c, at_np, bytes] = key;
    if (at_np != from) continue;
    const Point* target = point_at(points, c, np, bytes);
    if (target == nullptr) continue;
    ModelCheck& check = checks[c];
    const std::vector<Winner>& measured = *target->contenders;
    const Point* other = slope ? point_at(points, c, *slope, bytes) : nullptr;
    std::vector<Winner> predicted;  // of the candidates measured at both sizes
    for (Winner& p : scaled(point, other, np, model, coster))
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
    ++check.sizes;
    if (ratio <= kWithin) ++check.within;
    if (ratio > check.worst_ratio) {
      check.worst_ratio = ratio;
      std::ostringstream where;
      where << collective_name(c) << " np=" << np << " " << format_bytes(bytes) << ": "
            << pick->choice << " " << std::fixed << std::setprecision(2) << ratio << "x "
            << best->choice;
      check.worst = where.str();
    }
  }
}

// The measured size a prediction for np starts from: the largest below
// it, else the smallest above.
int source_np(const std::set<int>& measured, int np) {
  const auto above = measured.upper_bound(np);
  return above == measured.begin() ? *above : *std::prev(above);
}

// The measured size whose figures give, with from's, a candidate's slope
// (scaled_figure): the next one past from towards np (the line then
// interpolates), else the one on the other side; none where only from was
// measured.
std::optional<int> slope_np(const std::set<int>& measured, int from, int np) {
  const auto it = measured.find(from);
  const bool has_next = std::next(it) != measured.end(), has_prev = it != measured.begin();
  if (np > from && has_next) return *std::next(it);
  if (has_prev) return *std::prev(it);
  if (has_next) return *std::next(it);
  return std::nullopt;
}

// Each measured size predicted as if it had not been measured, from those
// below it, by a model fitted on them alone; per collective.
Checks check_model(const Points& points, Coster& coster) {
  Checks checks;
  const std::set<int> nps = measured_nps(points);
  std::set<int> below;
  for (auto it = nps.begin(); it != nps.end() && std::next(it) != nps.end(); ++it) {
    below.insert(*it);
    check_step(points, *it, slope_np(below, *it, *std::next(it)), *std::next(it),
               fit_up_to(points, *it, coster), coster, checks);
  }
  return checks;
}

// The predicted winner of one point: the measured winner where it states
// no cost (the library's call), else the fastest predicted; its fallbacks
// from the predicted figures (with the library's measured one).
std::optional<Winner> predicted_winner(const Point& from, const Point* other, int np, double margin,
                                       const CostModel& model, Coster& coster) {
  std::vector<Winner> rows = scaled(from, other, np, model, coster);
  const Winner* pick = fastest(rows);
  if (!coster.at(*from.best, from.best->np)) pick = from.best;
  if (pick == nullptr) return std::nullopt;
  if (const Winner* kept = find_choice(rows, from.best->choice);
      kept && kept->median_s <= pick->median_s * (1 + margin))
    pick = kept;
  Winner out = *pick;  // before rows grow: pick may point into them
  out.np = np;
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

std::string describe_model(const std::string& transport, const CostModel& model) {
  std::ostringstream line;
  line << "cost model (" << transport << "):";
  for (const CostModel::Term& t : model.terms())
    if (t.value > 0)
      line << " " << t.name << " " << std::setprecision(3)
           << (t.name.find("byte") != std::string::npos ? t.value * 1e9 : t.value * 1e6)
           << (t.name.find("byte") != std::string::npos ? " ns" : " us");
  return line.str() + "\n";
}

std::string describe_check(const std::string& transport, const ModelCheck& check) {
  const std::optional<double> median = check.median_error();
  if (!median)
    return "cost model (" + transport +
           "): not checked: one communicator size measured (measure two or more to check it)\n";
  std::ostringstream line;
  line << "cost model (" << transport
       << ") checked on each measured size from those below: " << check.errors.size()
       << " figures, time error median " << percent(*median) << ", worst "
       << percent(check.worst_error()) << "; the model's own pick within 5% of the best at "
       << check.within << " of " << check.sizes << " sizes";
  if (check.worst_ratio > kWithin)
    line << ", worst " << std::fixed << std::setprecision(2) << check.worst_ratio << "x ("
         << check.worst << ")";
  return line.str() + "\n";
}

void predict_transport(const std::string& transport, const Points& points,
                       const PredictionPlan& plan, Coster& coster, Predictions& out) {
  const std::set<int> measured = measured_nps(points);
  const CostModel model = fit_up_to(points, *measured.rbegin(), coster);
  Checks checks = check_model(points, coster);
  ModelCheck overall;
  for (const auto& [c, check] : checks) overall.add(check);
  out.report += describe_model(transport, model) + describe_check(transport, overall);
  std::set<int> predicted_nps;
  for (int np : plan.nps) {
    if (measured.contains(np) || np < 1) continue;
    const int from = source_np(measured, np);
    const std::optional<int> slope = slope_np(measured, from, np);
    for (const auto& [key, point] : points) {
      const auto [c, at_np, bytes] = key;
      if (at_np != from) continue;
      const std::optional<double> error = checks[c].median_error();
      const Point* other = slope ? point_at(points, c, *slope, bytes) : nullptr;
      std::optional<Winner> w =
          predicted_winner(point, other, np, error.value_or(kUncheckedMargin), model, coster);
      if (!w) continue;
      out.winners.push_back(std::move(*w));
      out.buckets[{c, transport, np}] = Prediction{.np = np, .from_np = from, .error = error};
      predicted_nps.insert(np);
    }
  }
  if (!predicted_nps.empty()) {
    out.report += "predicted (" + transport + "): np";
    for (int np : predicted_nps) out.report += " " + std::to_string(np);
    out.report +=
        ", from the measured np nearest each; a prediction replaces that np's pick only "
        "where it is faster by more than the model's checked error\n";
  }
}

// The order of Winners::best: collective, transport, nodes, np, bytes.
bool before(const Winner& a, const Winner& b) {
  return std::tie(a.collective, a.transport, a.nodes, a.np, a.bytes) <
         std::tie(b.collective, b.transport, b.nodes, b.np, b.bytes);
}

}  // namespace

Predictions predict(const Winners& measured, const Registry& registry, const PredictionPlan& plan) {
  Predictions out;
  Coster coster(registry, plan.shape);
  for (const auto& [transport, points] : points_by_transport(measured))
    predict_transport(transport, points, plan, coster, out);
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
        if (b.nodes != 1 || !b.measured_np) continue;
        const auto it = predicted.buckets.find({c, transport, *b.measured_np});
        if (it == predicted.buckets.end()) continue;
        b.predicted = it->second;
        b.measured_np.reset();
      }
  return rules;
}

}  // namespace cct::tuner
