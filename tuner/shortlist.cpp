#include "tuner/shortlist.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iterator>
#include <optional>
#include <sstream>
#include <tuple>
#include <utility>

#include "cct/collectives.hpp"
#include "cct/error.hpp"
#include "tuner/parse_number.hpp"
#include "tuner/predict.hpp"
#include "tuner/shape_text.hpp"
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

// The rows of transport's shapes over `nodes` nodes of a size `of_np`
// accepts: below np, those a shortlist of a job of np ranks is made from.
template <class NpTest>
std::vector<ResultRow> rows_on_nodes(const std::vector<ResultRow>& rows,
                                     const std::string& transport, int nodes, NpTest of_np) {
  std::vector<ResultRow> out;
  std::ranges::copy_if(rows, std::back_inserter(out), [&](const ResultRow& r) {
    return r.transport == transport && r.nodes == nodes && of_np(r.np);
  });
  return out;
}

// The figures of rows (rows_on_nodes below np): a candidate's full figure (final)
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

// The profile's picks at each (collective, message size) measured at np,
// among the winners of one transport's shapes over one node count.
std::map<std::pair<cct_collective, int64_t>, std::set<std::string>> picks_at(const Winners& plain,
                                                                             int np) {
  std::map<std::pair<cct_collective, int64_t>, std::set<std::string>> out;
  for (const Winner& w : plain.best)
    if (w.np == np) out[{w.collective, w.bytes}].insert(w.choice);
  return out;
}

// The picks of the smallest size above np measured over `nodes` nodes on
// transport (none where there is none).
std::map<std::pair<cct_collective, int64_t>, std::set<std::string>> picks_above(
    const std::vector<ResultRow>& rows, const Registry& registry, const std::string& transport,
    int nodes, int np) {
  const std::vector<ResultRow> above =
      rows_on_nodes(rows, transport, nodes, [np](int n) { return n > np; });
  if (above.empty()) return {};
  return picks_at(pick_winners(above, registry), std::ranges::min(above, {}, &ResultRow::np).np);
}

// What the shortlist does at one message size: the choices it leaves out,
// and for the time a job will take, the figures of those it keeps.
struct AtSize {
  std::map<std::string, Dropped> dropped;
  std::size_t kept = 0;
  double kept_timed_s = 0;
};

// What the calls of a point take at np: its warm-up (one call where the
// call is slow, as the size below will have shown), then its figure there
// times the repetitions it took where last measured, within what the timing method
// allows (its first round whatever the budget, then the budget).
double point_seconds(double figure, int reps, const MeasureOptions& timing) {
  const int warmup = slow_call(figure, timing) ? std::min(timing.warmup, 1) : timing.warmup;
  return figure * warmup +
         std::min(figure * reps, std::max(timing.budget_s, figure * first_round(timing)));
}

// What decides at every message size of a job.
struct Criteria {
  int nodes;  // the job's
  // The second smallest size measured: every candidate that runs there
  // was measured there (the two smallest are measured whole), so one not
  // measured since cannot run at larger sizes.
  int whole_np;
  std::size_t keep;
  double far_behind;  // 0: none
  const MeasureOptions& timing;
  const CostModel& model;
  Coster& coster;
};

// A candidate's last figures at one message size: at the largest size
// below the job's it was measured at (M itself, or for one a shortlist
// left out at M, a smaller one), and at the size before that.
struct Last {
  int np = 0;
  Measured at;
  std::optional<Winner> before;
};

// Each candidate's Last at (collective, message size), from figures
// (ascending in np at each collective).
std::map<std::pair<cct_collective, int64_t>, std::map<std::string, Last>> last_of(
    const Figures& figures) {
  std::map<std::pair<cct_collective, int64_t>, std::map<std::string, Last>> out;
  for (const auto& [key, by_choice] : figures) {
    const auto [c, np, bytes] = key;
    for (const auto& [choice, m] : by_choice) {
      Last& last = out[{c, bytes}][choice];
      if (last.np > 0) last.before = last.at.figure;
      last.np = np;
      last.at = m;
    }
  }
  return out;
}

// A candidate the model can scale at one message size: its figure
// predicted at np, measured at its Last size and (where it was) the size
// before.
struct Scaled {
  double seconds;
  std::string choice;
  std::string algorithm;
  int reps;
  int at_np;
  double at_last;
  std::optional<double> at_before;
  bool operator<(const Scaled& o) const {
    return std::tie(seconds, choice) < std::tie(o.seconds, o.choice);
  }
};

bool within_tie(double a, double b) {
  return std::abs(a / b - 1) <= kTie;
}

// Whether a and b are values of one algorithm last measured at the same
// size and tied there, at the size before where both were measured there,
// and as predicted.
bool tied(const Scaled& a, const Scaled& b) {
  return a.algorithm == b.algorithm && a.at_np == b.at_np && within_tie(a.seconds, b.seconds) &&
         within_tie(a.at_last, b.at_last) &&
         (!a.at_before || !b.at_before || within_tie(*a.at_before, *b.at_before));
}

// Why the candidate predicted i-th fastest is left out, given those kept
// before it; nullopt: it is measured.
std::optional<Dropped> reason_to_drop(const std::vector<Scaled>& predicted, std::size_t i,
                                      const std::vector<const Scaled*>& kept,
                                      const std::set<std::string>& picks,
                                      const Criteria& criteria) {
  const Scaled& s = predicted[i];
  const bool pick = picks.contains(s.choice);
  if (i >= criteria.keep && !pick) return Dropped::kSlower;
  // M's pick won where it was measured last: only a measurement says it
  // loses at np, however far behind the model puts it.
  if (!pick && criteria.far_behind > 0 &&
      s.seconds > predicted.front().seconds * criteria.far_behind)
    return Dropped::kFarBehind;
  if (std::ranges::any_of(kept, [&](const Scaled* k) { return tied(s, *k); }))
    return Dropped::kTied;
  return std::nullopt;
}

// The shortlist at one message size from each candidate's last figures,
// scaled to np.
AtSize shortlist_at(const std::map<std::string, Last>& last, int np,
                    const std::set<std::string>& picks, const Criteria& criteria) {
  std::vector<Scaled> predicted;
  AtSize out;
  for (const auto& [choice, l] : last) {
    if (l.np < criteria.whole_np) continue;
    const Measured& m = l.at;
    const Winner* before = l.before ? &*l.before : nullptr;
    const std::optional<double> figure =
        m.figure.library
            ? std::nullopt
            : scaled_figure(m.figure, before, criteria.nodes, np, criteria.model, criteria.coster);
    if (figure) {
      predicted.push_back({*figure, choice, m.figure.algorithm, m.reps, l.np, m.figure.median_s,
                           before ? std::optional(before->median_s) : std::nullopt});
    } else {  // kept, as it was measured last
      ++out.kept;
      out.kept_timed_s += point_seconds(m.figure.median_s, m.reps, criteria.timing);
    }
  }
  std::sort(predicted.begin(), predicted.end());
  std::vector<const Scaled*> kept;
  for (std::size_t i = 0; i < predicted.size(); ++i)
    if (const std::optional<Dropped> why = reason_to_drop(predicted, i, kept, picks, criteria)) {
      out.dropped[predicted[i].choice] = *why;
    } else {
      kept.push_back(&predicted[i]);
      ++out.kept;
      out.kept_timed_s += point_seconds(predicted[i].seconds, predicted[i].reps, criteria.timing);
    }
  return out;
}

// The (collective, variation) pairs whose variants were timed in `below`
// (one transport's rows over one node count) and got no rules of their own there
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

// The timed calls of np's rows (below's) the job does not make again: the
// variants of `unvaried`, and a confirming job's every variant, crossover
// and check.
double left_out_timed_s(const std::vector<ResultRow>& below, int np,
                        const std::set<std::pair<cct_collective, Variation>>& unvaried,
                        bool confirming) {
  double seconds = 0;
  for (const ResultRow& row : below) {
    if (row.np != np) continue;
    const std::optional<Variation> v = variation_of(row.stage);
    cct_collective c{};
    const bool left_out =
        confirming ? v || row.stage == Stage::kCrossover || is_check(row.stage)
                   : v && parse_collective(row.collective, &c) && unvaried.contains({c, *v});
    if (left_out) seconds += row.result.median_s * row.result.reps;
  }
  return seconds;
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

// Each Dropped's word in the shortlist's text, and what it says to people
// (describe_removed).
struct DroppedFacts {
  Dropped why;
  const char* word;
};
constexpr DroppedFacts kDroppedFacts[] = {
    {Dropped::kSlower, "slower"}, {Dropped::kFarBehind, "far_behind"}, {Dropped::kTied, "tied"}};

const char* word_of(Dropped why) {
  for (const DroppedFacts& f : kDroppedFacts)
    if (f.why == why) return f.word;
  throw Error("shortlist: unknown reason");
}

std::optional<Dropped> dropped_of(const std::string& word) {
  for (const DroppedFacts& f : kDroppedFacts)
    if (word == f.word) return f.why;
  return std::nullopt;
}

std::string times(double factor) {
  std::ostringstream text;
  text << std::setprecision(2) << factor << "x";
  return text.str();
}

// For people: why `count` points were removed.
std::string why_text(const Shortlist& s, Dropped why, std::size_t count) {
  const std::string n = std::to_string(count) + " ";
  switch (why) {
    case Dropped::kSlower:
      return n + "predicted slower than the " + std::to_string(s.keep) + " fastest";
    case Dropped::kFarBehind:
      return n + "predicted over " + times(s.far_behind()) +
             " behind the fastest (where checked on np=" + std::to_string(s.from_np) +
             ", the model put a size's fastest up to " + times(s.lag) +
             " behind its own pick: that squared for a size further out, " +
             times(kFarBehindFloor) + " at least)";
    case Dropped::kTied:
      return n + "tied with another value of their algorithm, measured (within " +
             std::to_string(std::lround(kTie * 100)) +
             "% of it at the two sizes both were last measured at, and as predicted)";
  }
  return n;
}

}  // namespace

std::optional<Dropped> Shortlist::why_dropped(const Point& p) const {
  const auto it = dropped.find({p.call.collective, p.transport, p.call.bytes});
  if (it == dropped.end()) return std::nullopt;
  const auto choice = it->second.find(p.row({}).choice());
  return choice == it->second.end() ? std::nullopt : std::optional(choice->second);
}

Shortlist make_shortlist(const std::vector<ResultRow>& rows, const Registry& registry,
                         const ShapeOf& shape, const std::string& transport, int nodes, int np,
                         std::size_t keep, const MeasureOptions& timing, const SpaceFilter& sizes,
                         bool confirming) {
  Shortlist out{.nodes = nodes, .np = np, .keep = confirming ? 1 : keep, .confirming = confirming};
  const std::vector<ResultRow> below =
      rows_on_nodes(rows, transport, nodes, [np](int n) { return n < np; });
  const Figures figures = figures_of(below, registry);
  std::set<int> measured;
  for (const auto& [key, by_choice] : figures) measured.insert(std::get<1>(key));
  if (measured.size() < 2) return out;
  const Winners plain = pick_winners(below, registry);
  out.unvaried = unvaried(below, plain, registry);
  out.from_np = *measured.rbegin();
  out.left_out_timed_s = left_out_timed_s(below, out.from_np, out.unvaried, confirming);
  // Checked on one node's sizes only (predict.hpp): across nodes no
  // far-behind rule.
  out.lag = nodes == 1 ? checked_lag(plain, registry, shape, transport).value_or(0) : 0;
  Coster coster(registry, shape);
  const CostModel model = fit(figures, coster);
  const Criteria criteria{.nodes = nodes,
                          .whole_np = *std::next(measured.begin()),
                          .keep = out.keep,
                          .far_behind = out.far_behind(),
                          .timing = timing,
                          .model = model,
                          .coster = coster};
  auto picks = picks_at(plain, out.from_np);
  // A confirming job's size lies between measured ones: the pick of the
  // one above may serve it as well.
  if (confirming)
    for (const auto& [key, choices] : picks_above(rows, registry, transport, nodes, np))
      picks[key].insert(choices.begin(), choices.end());
  std::map<cct_collective, int64_t> largest;  // at np
  for (const auto& [key, last] : last_of(figures)) {
    const auto [c, bytes] = key;
    if (!figures.contains({c, out.from_np, bytes})) continue;  // M's sizes
    if (!largest.contains(c)) largest[c] = largest_size(c, np, sizes);
    if (bytes > largest[c]) continue;
    const auto pick = picks.find({c, bytes});
    AtSize at = shortlist_at(last, np, pick == picks.end() ? std::set<std::string>() : pick->second,
                             criteria);
    out.kept += at.kept;
    out.kept_timed_s += at.kept_timed_s;
    if (!at.dropped.empty()) out.dropped[{c, transport, bytes}] = std::move(at.dropped);
  }
  return out;
}

std::map<Dropped, std::size_t> apply_shortlist(const Shortlist& shortlist, Space& space) {
  std::map<Dropped, std::size_t> removed;
  std::erase_if(space.points, [&](const Point& p) {
    const std::optional<Dropped> why = shortlist.why_dropped(p);
    if (why) ++removed[*why];
    return why.has_value();
  });
  return removed;
}

std::string describe_removed(const Shortlist& shortlist,
                             const std::map<Dropped, std::size_t>& removed, std::size_t total) {
  std::size_t sum = 0;
  std::string reasons;
  for (const auto& [why, count] : removed) {
    sum += count;
    reasons += (reasons.empty() ? "" : ", ") + why_text(shortlist, why, count);
  }
  return std::to_string(sum) + " of " + std::to_string(total) +
         " points left out, by the cost model fitted below " +
         shape_text(shortlist.nodes, shortlist.np) + " from the figures of " +
         shape_text(shortlist.nodes, shortlist.from_np) +
         " (of a candidate not measured there, its last): " + reasons;
}

std::string describe_confirming(const Shortlist& shortlist) {
  return "a size predicted, confirmed by this job: at each message size the model's fastest "
         "measured beside the picks of " +
         shape_text(shortlist.nodes, shortlist.from_np) +
         " and the measured size above and the library's call, without crossovers, checks, "
         "element types or roots, and no second job";
}

std::string describe_unvaried(const Shortlist& shortlist) {
  std::string unvaried;
  for (const auto& [c, v] : shortlist.unvaried)
    unvaried += std::string(unvaried.empty() ? "" : ", ") + collective_name(c) + " (" +
                variation_name(v) + ")";
  return "not timed again in other element types or at another root, since they got no rules "
         "of their own below " +
         shape_text(shortlist.nodes, shortlist.np) + ": " + unvaried;
}

// "nodes np from_np confirming keep lag kept kept_timed_s left_out_timed_s", then
// "collective<TAB>transport<TAB>bytes<TAB>why<TAB>choice" per dropped
// choice (a choice holds no tab).
std::string write_shortlist(const Shortlist& shortlist) {
  std::ostringstream text;
  text << shortlist.nodes << ' ' << shortlist.np << ' ' << shortlist.from_np << ' '
       << shortlist.confirming << ' ' << shortlist.keep << ' ' << std::setprecision(17)
       << shortlist.lag << ' ' << shortlist.kept << ' ' << shortlist.kept_timed_s << ' '
       << shortlist.left_out_timed_s << '\n';
  for (const auto& [key, choices] : shortlist.dropped)
    for (const auto& [choice, why] : choices)
      text << collective_name(std::get<0>(key)) << '\t' << std::get<1>(key) << '\t'
           << std::get<2>(key) << '\t' << word_of(why) << '\t' << choice << '\n';
  for (const auto& [c, v] : shortlist.unvaried)
    text << "unvaried\t" << collective_name(c) << '\t' << variation_name(v) << '\n';
  return text.str();
}

Shortlist read_shortlist(const std::string& text) {
  std::istringstream in(text);
  Shortlist out;
  std::string line;
  if (!(in >> out.nodes >> out.np >> out.from_np >> out.confirming >> out.keep >> out.lag >>
        out.kept >> out.kept_timed_s >> out.left_out_timed_s) ||
      !std::getline(in, line))
    throw Error(
        "shortlist: no 'nodes np from_np confirming keep lag kept kept_timed_s left_out_timed_s' "
        "line");
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string collective, transport, bytes, word, choice;
    cct_collective c{};
    if (line.starts_with("unvaried\t")) {
      read_unvaried(line, out);
      continue;
    }
    std::optional<Dropped> why;
    int64_t size = 0;
    if (!std::getline(fields, collective, '\t') || !std::getline(fields, transport, '\t') ||
        !std::getline(fields, bytes, '\t') || !std::getline(fields, word, '\t') ||
        !std::getline(fields, choice) || !parse_collective(collective, &c) ||
        !parse_number(bytes, &size) || !(why = dropped_of(word)))
      throw Error("shortlist: bad line '" + line + "'");
    out.dropped[{c, transport, size}][choice] = *why;
  }
  return out;
}

}  // namespace cct::tuner
