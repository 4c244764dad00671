#include "tuner/accuracy.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "cct/error.hpp"
#include "cct/units.hpp"
#include "tuner/shape_text.hpp"
#include "tuner/winners.hpp"

namespace cct::tuner {
namespace {

// The rule the profile applies to a call, and whether it is its bucket's
// one rule for every size.
struct RuleAt {
  const SizeRule* rule = nullptr;
  bool every_size = false;
};

// The rule the profile applies to w's call, as the runtime does (the
// bucket of its shape, or of the node count standing in for its nodes:
// closest_tuned_nodes), or none: for a call at a root other than 0
// (nonzero_root), in the bucket of such roots where there is one, else in
// the bucket of every call.
RuleAt rule_for(const Profile& profile, const Winner& w, bool nonzero_root = false) {
  const auto by_collective = profile.rules.find(w.collective);
  if (by_collective == profile.rules.end()) return {};
  const auto by_transport = by_collective->second.find(w.transport);
  if (by_transport == by_collective->second.end()) return {};
  const int nodes = closest_tuned_nodes(profile, w.transport, w.nodes);
  const auto in = [&](bool roots_bucket) -> RuleAt {
    for (const RankBucket& bucket : by_transport->second)
      if (bucket.nodes == nodes && bucket.np_lo <= w.np && w.np <= bucket.np_hi &&
          bucket.datatypes.empty() && bucket.nonzero_roots == roots_bucket)
        for (const SizeRule& rule : bucket.sizes)
          if (rule.lo <= w.bytes && w.bytes < rule.hi) return {&rule, bucket.sizes.size() == 1};
    return {};
  };
  const RuleAt own = nonzero_root ? in(true) : RuleAt{};
  return own.rule != nullptr ? own : in(false);
}

// Adds one off-grid size (its check rows) to a. agreement_s: what a call
// of another choice than `rule` would pay first, where the rule is one
// for every size of a collective whose size no rank knows alone: a rule
// by size makes each call agree on its size (one_rule.hpp), the one rule
// avoids it, and a candidate timed faster there is faster only after it.
void add_size(const std::vector<Winner>& rows, const SizeRule& rule, Accuracy& a,
              double agreement_s = 0) {
  const Winner* chosen = nullptr;
  for (const Winner& w : rows)
    if (w.algorithm == rule.algorithm && w.params == rule.params) chosen = &w;
  if (chosen == nullptr) return;
  const Winner* fastest = chosen;
  double fastest_s = chosen->median_s;
  for (const Winner& w : rows)
    if (&w != chosen && w.median_s + agreement_s < fastest_s) {
      fastest = &w;
      fastest_s = w.median_s + agreement_s;
    }
  if (fastest_s <= 0) return;
  const double ratio = chosen->median_s / fastest_s;
  a.mean_ratio += (ratio - a.mean_ratio) / static_cast<double>(++a.checked);
  if (ratio <= 1 + a.tolerance)
    ++a.within;
  else if (chosen->library)
    ++a.missed_on_library;
  if (ratio <= a.worst_ratio) return;
  std::ostringstream where;
  where.precision(3);
  where << collective_name(chosen->collective) << " " << chosen->transport << " "
        << shape_text(chosen->nodes, chosen->np) << " " << format_bytes(chosen->bytes) << ": "
        << chosen->choice << " " << ratio << "x " << fastest->choice;
  a.worst_ratio = ratio;
  a.worst = where.str();
}

// The rows for which `wanted` holds, as winners by point (collective,
// transport, nodes, np, bytes); rows the registry cannot read left out.
template <class Wanted>
std::vector<std::vector<Winner>> points_of(const std::vector<ResultRow>& rows,
                                           const Registry& registry, Wanted wanted) {
  using Point = std::tuple<cct_collective, std::string, int, int, int64_t>;
  std::map<Point, std::vector<Winner>> points;
  for (const ResultRow& row : rows) {
    Winner w;
    if (wanted(row) && read_winner(row, registry, &w).empty())
      points[Point{w.collective, w.transport, w.nodes, w.np, w.bytes}].push_back(std::move(w));
  }
  std::vector<std::vector<Winner>> out;
  for (auto& [point, winners] : points) out.push_back(std::move(winners));
  return out;
}

// One row per candidate of a check's point: the slowest of its figures
// there, from the second job's recheck as well as the first job's check,
// and in each count pattern of a vector collective, so that a candidate
// is weighed as the confirmations that chose the picks weigh it (the
// slower job, the worst pattern: search.hpp, step 3).
std::vector<Winner> slowest_per_candidate(const std::vector<Winner>& point) {
  std::vector<Winner> out;
  for (const Winner& w : point) {
    const auto same = std::ranges::find(out, w.choice, &Winner::choice);
    if (same == out.end()) {
      out.push_back(w);
    } else if (w.median_s > same->median_s) {
      *same = w;
    }
  }
  return out;
}

}  // namespace

Accuracy profile_accuracy(const std::vector<ResultRow>& rows, const Profile& profile,
                          const Registry& registry) {
  const std::map<AgreementShape, double> agreed = agreements(rows);
  Accuracy a;
  for (const std::vector<Winner>& timed :
       points_of(rows, registry, [](const ResultRow& r) { return is_check(r.stage); })) {
    const std::vector<Winner> point = slowest_per_candidate(timed);
    const Winner& w = point.front();
    const RuleAt at = rule_for(profile, w);
    if (at.rule == nullptr) continue;
    const auto agreement = agreed.find({w.transport, w.nodes, w.np});
    const bool avoids = at.every_size && collective_info(w.collective).key_parts != nullptr &&
                        agreement != agreed.end();
    add_size(point, *at.rule, a, avoids ? agreement->second : 0);
  }
  return a;
}

Accuracy root_accuracy(const std::vector<ResultRow>& rows, const Profile& profile,
                       const Registry& registry, bool root_zero_rules, double tolerance) {
  const std::set<std::string> failed = failed_candidates(rows);
  const auto at_other_root = [&](const ResultRow& r) {
    return r.stage == Stage::kRooted && r.root.value_or(0) != 0 && !failed.contains(r.candidate());
  };
  Accuracy a{.tolerance = tolerance};
  for (const std::vector<Winner>& point : points_of(rows, registry, at_other_root))
    if (const RuleAt at = rule_for(profile, point.front(), !root_zero_rules); at.rule)
      add_size(point, *at.rule, a);
  return a;
}

Accuracy measured_accuracy(const std::vector<ResultRow>& rows, const Profile& profile,
                           const Registry& registry, double tolerance) {
  const Winners measured = pick_winners(rows, registry);
  Accuracy a{.tolerance = tolerance};
  for (const std::vector<Winner>& point : measured.contenders)
    if (const RuleAt at = rule_for(profile, point.front()); at.rule) add_size(point, *at.rule, a);
  return a;
}

std::string describe(const Accuracy& a, const std::string& what) {
  if (a.checked == 0) return what + ": none measured";
  std::ostringstream out;
  out.precision(3);
  out << what << ": " << a.checked << " sizes, the profile's choice within " << a.tolerance * 100
      << "% of the fastest at " << a.within;
  if (a.missed_on_library > 0)
    out << "; " << a.checked - a.within << " missed, " << a.missed_on_library
        << " of them kept on the library";
  out << "; mean " << a.mean_ratio << "x, worst " << a.worst_ratio << "x";
  if (!a.worst.empty()) out << " (" << a.worst << ")";
  return out.str();
}

}  // namespace cct::tuner
