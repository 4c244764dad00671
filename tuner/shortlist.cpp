#include "tuner/shortlist.hpp"

#include <algorithm>
#include <iterator>
#include <optional>
#include <sstream>
#include <tuple>
#include <utility>

#include "cct/collectives.hpp"
#include "cct/error.hpp"
#include "tuner/winners.hpp"

namespace cct::tuner {
namespace {

// A candidate's figure at one point and the repetitions it took.
struct Measured {
  Winner figure;
  int reps = 0;
};
// (collective, np, message size) -> each candidate's figure there, by choice.
using Figures = std::map<std::tuple<cct_collective, int, int64_t>, std::map<std::string, Measured>>;

// The rows a shortlist of a job of np ranks on transport is made from:
// those of its single-node shapes below np.
std::vector<ResultRow> rows_below(const std::vector<ResultRow>& rows, const std::string& transport,
                                  int np) {
  std::vector<ResultRow> below;
  std::ranges::copy_if(rows, std::back_inserter(below), [&](const ResultRow& r) {
    return r.transport == transport && r.nodes == 1 && r.np < np;
  });
  return below;
}

// The figures of rows (rows_below): a candidate's full figure (final)
// where it has one, else its screening figure (pruned), which is what
// halving judged it on. Confirmations, crossovers and checks are timed
// otherwise, or at sizes other than the grid's.
Figures figures_of(const std::vector<ResultRow>& rows, const Registry& registry) {
  Figures out;
  for (const ResultRow& row : rows) {
    if (row.stage != Stage::kFinal && row.stage != Stage::kPruned) continue;
    Measured m{.reps = row.result.reps};
    if (!read_winner(row, registry, &m.figure).empty() || !(m.figure.median_s > 0)) continue;
    auto& at = out[{m.figure.collective, m.figure.np, m.figure.bytes}];
    auto [it, fresh] = at.try_emplace(m.figure.choice, m);
    if (!fresh && row.stage == Stage::kFinal) it->second = std::move(m);
  }
  return out;
}

CostModel fit(const Figures& figures, Coster& coster) {
  std::vector<CostSample> samples;
  for (const auto& [key, by_choice] : figures)
    for (const auto& [choice, m] : by_choice)
      if (std::optional<CostSample> s = coster.at(m.figure)) samples.push_back(std::move(*s));
  return CostModel::fit(samples);
}

// The profile's pick at each (collective, message size) measured at np,
// among the winners of one transport's single-node shapes.
std::map<std::pair<cct_collective, int64_t>, std::string> picks_at(const Winners& plain, int np) {
  std::map<std::pair<cct_collective, int64_t>, std::string> out;
  for (const Winner& w : plain.best)
    if (w.np == np) out[{w.collective, w.bytes}] = w.choice;
  return out;
}

// What the shortlist does at one message size: the choices it leaves out,
// and for the time a job will take, the figures of those it keeps.
struct AtSize {
  std::set<std::string> dropped;
  std::size_t kept = 0;
  double kept_timed_s = 0;
};

// What the calls of a point take at np: its warm-up (one call where the
// call is slow, as the size below will have shown), then its figure there
// times the repetitions it took at from_np, within what the timing method
// allows (its first round whatever the budget, then the budget).
double point_seconds(double figure, int reps, const MeasureOptions& timing) {
  const int warmup = slow_call(figure, timing) ? std::min(timing.warmup, 1) : timing.warmup;
  return figure * warmup +
         std::min(figure * reps, std::max(timing.budget_s, figure * first_round(timing)));
}

// The shortlist at one message size from the figures at `from`, each
// scaled to np (`below`: the same size measured at the size below from,
// for the slope).
AtSize shortlist_at(const std::map<std::string, Measured>& from,
                    const std::map<std::string, Measured>* below, int np, const std::string& pick,
                    std::size_t keep, const MeasureOptions& timing, const CostModel& model,
                    Coster& coster) {
  struct Scaled {
    double seconds;
    std::string choice;
    int reps;
    bool operator<(const Scaled& o) const {
      return std::tie(seconds, choice) < std::tie(o.seconds, o.choice);
    }
  };
  std::vector<Scaled> predicted;
  AtSize out;
  for (const auto& [choice, m] : from) {
    const Winner* lower = nullptr;
    if (below)
      if (const auto it = below->find(choice); it != below->end()) lower = &it->second.figure;
    const std::optional<double> figure =
        m.figure.library ? std::nullopt : scaled_figure(m.figure, lower, 1, np, model, coster);
    if (figure) {
      predicted.push_back({*figure, choice, m.reps});
    } else {  // kept, as it was at from
      ++out.kept;
      out.kept_timed_s += point_seconds(m.figure.median_s, m.reps, timing);
    }
  }
  std::sort(predicted.begin(), predicted.end());
  for (std::size_t i = 0; i < predicted.size(); ++i)
    if (i < keep || predicted[i].choice == pick) {
      ++out.kept;
      out.kept_timed_s += point_seconds(predicted[i].seconds, predicted[i].reps, timing);
    } else {
      out.dropped.insert(predicted[i].choice);
    }
  return out;
}

// The (collective, variation) pairs whose variants were timed in `below`
// (one transport's single-node rows) and got no rules of their own there
// (variant_rules.hpp); plain: pick_winners of below.
std::set<std::pair<cct_collective, Variation>> unvaried(const std::vector<ResultRow>& below,
                                                        const Winners& plain,
                                                        const Registry& registry) {
  const std::map<cct_collective, TransportRules> plain_rules = build_rules(plain.best);
  std::set<std::pair<cct_collective, Variation>> out;
  for (Variation v : kEveryVariation) {
    const VariantRules variants = variant_rules(v, below, plain, plain_rules, registry);
    for (const auto& [c, transport_measured] : variants.measured)
      if (!variants.buckets.contains(c)) out.insert({c, v});
  }
  return out;
}

// "unvaried\t<collective>\t<variation_name>" into out.unvaried.
void read_unvaried(const std::string& line, Shortlist& out) {
  std::istringstream fields(line);
  std::string tag, collective, variation;
  cct_collective c{};
  if (std::getline(fields, tag, '\t') && std::getline(fields, collective, '\t') &&
      std::getline(fields, variation) && parse_collective(collective, &c))
    for (Variation v : kEveryVariation)
      if (variation == variation_name(v)) {
        out.unvaried.insert({c, v});
        return;
      }
  throw Error("shortlist: bad line '" + line + "'");
}

}  // namespace

bool Shortlist::drops(const Point& p) const {
  const auto it = dropped.find({p.call.collective, p.transport, p.call.bytes});
  return it != dropped.end() && it->second.contains(p.row({}).choice());
}

Shortlist make_shortlist(const std::vector<ResultRow>& rows, const Registry& registry,
                         const ShapeOf& shape, const std::string& transport, int np,
                         std::size_t keep, const MeasureOptions& timing, const SpaceFilter& sizes) {
  Shortlist out{.np = np};
  const std::vector<ResultRow> below = rows_below(rows, transport, np);
  const Figures figures = figures_of(below, registry);
  std::set<int> measured;
  for (const auto& [key, by_choice] : figures) measured.insert(std::get<1>(key));
  if (measured.size() < 2) return out;
  const Winners plain = pick_winners(below, registry);
  out.unvaried = unvaried(below, plain, registry);
  out.from_np = *measured.rbegin();
  const int below_np = *std::next(measured.rbegin());
  Coster coster(registry, shape);
  const CostModel model = fit(figures, coster);
  const auto picks = picks_at(plain, out.from_np);
  std::map<cct_collective, int64_t> largest;  // at np
  for (const auto& [key, by_choice] : figures) {
    const auto [c, at_np, bytes] = key;
    if (at_np != out.from_np) continue;
    if (!largest.contains(c)) largest[c] = largest_size(c, np, sizes);
    if (bytes > largest[c]) continue;
    const auto below = figures.find({c, below_np, bytes});
    const auto pick = picks.find({c, bytes});
    AtSize at = shortlist_at(by_choice, below == figures.end() ? nullptr : &below->second, np,
                             pick == picks.end() ? std::string() : pick->second, keep, timing,
                             model, coster);
    out.kept += at.kept;
    out.kept_timed_s += at.kept_timed_s;
    if (!at.dropped.empty()) out.dropped[{c, transport, bytes}] = std::move(at.dropped);
  }
  return out;
}

std::size_t apply_shortlist(const Shortlist& shortlist, Space& space) {
  return std::erase_if(space.points, [&](const Point& p) { return shortlist.drops(p); });
}

// "np from_np", then "collective<TAB>transport<TAB>bytes<TAB>choice" per
// dropped choice (a choice holds no tab).
std::string write_shortlist(const Shortlist& shortlist) {
  std::ostringstream text;
  text << shortlist.np << ' ' << shortlist.from_np << '\n';
  for (const auto& [key, choices] : shortlist.dropped)
    for (const std::string& choice : choices)
      text << collective_name(std::get<0>(key)) << '\t' << std::get<1>(key) << '\t'
           << std::get<2>(key) << '\t' << choice << '\n';
  for (const auto& [c, v] : shortlist.unvaried)
    text << "unvaried\t" << collective_name(c) << '\t' << variation_name(v) << '\n';
  return text.str();
}

Shortlist read_shortlist(const std::string& text) {
  std::istringstream in(text);
  Shortlist out;
  std::string line;
  if (!(in >> out.np >> out.from_np) || !std::getline(in, line))
    throw Error("shortlist: no 'np from_np' line");
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string collective, transport, bytes, choice;
    cct_collective c{};
    if (line.starts_with("unvaried\t")) {
      read_unvaried(line, out);
      continue;
    }
    if (!std::getline(fields, collective, '\t') || !std::getline(fields, transport, '\t') ||
        !std::getline(fields, bytes, '\t') || !std::getline(fields, choice) ||
        !parse_collective(collective, &c))
      throw Error("shortlist: bad line '" + line + "'");
    out.dropped[{c, transport, std::stoll(bytes)}].insert(choice);
  }
  return out;
}

}  // namespace cct::tuner
