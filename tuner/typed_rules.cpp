#include "tuner/typed_rules.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <tuple>

#include "cct/error.hpp"
#include "tuner/search.hpp"

namespace cct::tuner {
namespace {

// A measured point: collective, transport, nodes, np, bytes.
using PointKey = std::tuple<cct_collective, std::string, int, int, int64_t>;
// What gets rules of its own: collective, transport, nodes, element type.
using TypeGroup = std::tuple<cct_collective, std::string, int, std::string>;
using PointRows = std::map<PointKey, std::vector<Winner>>;

PointKey key_of(const Winner& w) {
  return {w.collective, w.transport, w.nodes, w.np, w.bytes};
}

// The typed rows as winners: those of the reference type (int32, search.hpp,
// step 6), which the others are weighed against, and the others by type
// group. A candidate that failed in a shape is left out of it, as
// pick_winners leaves it out.
struct Contenders {
  std::map<TypeGroup, PointRows> typed;
  PointRows reference;
};

Contenders contenders_of(const std::vector<ResultRow>& rows, const Registry& registry) {
  const std::set<std::string> failed = failed_candidates(rows);
  Contenders out;
  for (const ResultRow& row : rows) {
    Winner w;
    if (row.stage != Stage::kTyped || failed.contains(row.candidate()) ||
        !read_winner(row, registry, &w).empty())
      continue;
    PointRows& into = row.datatype == datatype_name(kReferenceType)
                          ? out.reference
                          : out.typed[{w.collective, w.transport, w.nodes, row.datatype}];
    into[key_of(w)].push_back(std::move(w));
  }
  return out;
}

// The winner among rows, `preferred` kept where it is within the noise
// of the fastest; null where rows is empty.
const Winner* winner_of(const std::vector<const Winner*>& rows, const std::string& preferred) {
  if (rows.empty()) return nullptr;
  std::vector<Contender> contenders;
  for (const Winner* w : rows) contenders.push_back(as_contender(*w, w->choice == preferred));
  return rows[choose_winner(contenders)];
}

std::vector<const Winner*> pointers(const std::vector<Winner>& rows) {
  std::vector<const Winner*> out;
  for (const Winner& w : rows) out.push_back(&w);
  return out;
}

// Whether a beats b among rows (their figures of one type) beyond the
// noise: b preferred, a still wins. Where a and b are tied in int32, the
// tie margin of one type's figures against another's decides nothing: a
// type's winner differs only where the two order them oppositely, each
// beyond its noise (without it, int32 rows measured again as uint32, the
// same instructions, gave one or two of six reductions rules of their
// own in each of three runs).
bool beats(const Winner& a, const Winner& b, const std::vector<Winner>& rows) {
  std::vector<const Winner*> pair;
  for (const Winner& w : rows)
    if (w.choice == a.choice || w.choice == b.choice) pair.push_back(&w);
  const Winner* winner = winner_of(pair, b.choice);
  return winner != nullptr && winner->choice == a.choice;
}

// The typed winner's fallbacks: the untyped winner where it is another,
// then the untyped winner's fallbacks; each with its figure in this type
// where it was measured in it.
std::vector<Fallback> typed_fallbacks(const Winner& typed, const Winner& untyped,
                                      const std::vector<Winner>& rows) {
  const auto figure = [&](const std::string& algorithm, const std::map<std::string, int64_t>& p) {
    std::optional<double> out;
    for (const Winner& w : rows)
      if (w.algorithm == algorithm && w.params == p) out = w.median_s;
    return out;
  };
  std::vector<Fallback> out;
  const auto add = [&](const std::string& algorithm, const std::map<std::string, int64_t>& p) {
    if (algorithm != typed.algorithm || p != typed.params)
      out.push_back({.algorithm = algorithm, .params = p, .median_s = figure(algorithm, p)});
  };
  add(untyped.algorithm, untyped.params);
  for (const Fallback& f : untyped.fallbacks) add(f.algorithm, f.params);
  return out;
}

// The rule of a point in a type: the winner of its typed rows where it
// differs from the reference winner among the same candidates, timed with
// them, and the two order these candidates oppositely, each beyond the
// noise; with its fallbacks. Else the untyped winner u, which the type
// changes nothing for. Nothing where the point has no reference figures.
std::optional<Winner> typed_winner(const std::vector<Winner>& typed,
                                   const std::vector<Winner>& reference, const Winner& u) {
  const Winner* base = winner_of(pointers(reference), u.choice);
  if (base == nullptr) return std::nullopt;
  const Winner* w = winner_of(pointers(typed), base->choice);
  if (w->choice == base->choice || !beats(*base, *w, reference)) return u;
  Winner own = *w;
  own.fallbacks = typed_fallbacks(own, u, typed);
  return own;
}

// rules with the range of r given to r: the rules it overlaps cut short
// or left out, neighbours of one choice merged (the first's figure
// kept); a rule cut short at its start loses its figure, measured there.
std::vector<SizeRule> spliced(const std::vector<SizeRule>& rules, const SizeRule& r) {
  std::vector<SizeRule> pieces{r};
  for (const SizeRule& x : rules) {
    if (x.hi <= r.lo || x.lo >= r.hi) {
      pieces.push_back(x);
      continue;
    }
    if (x.lo < r.lo) pieces.emplace_back(x).hi = r.lo;
    if (x.hi > r.hi) {  // its figure was measured where it started
      SizeRule& right = pieces.emplace_back(x);
      right.lo = r.hi;
      right.median_s.reset();
    }
  }
  std::ranges::sort(pieces, {}, &SizeRule::lo);
  std::vector<SizeRule> out;
  for (SizeRule& piece : pieces)
    if (!out.empty() && out.back().algorithm == piece.algorithm &&
        out.back().params == piece.params)
      out.back().hi = piece.hi;
    else
      out.push_back(std::move(piece));
  return out;
}

// The rule of a type's own winner w at its size, over the sizes up to
// where its neighbours among the sizes measured in the type take over
// (the boundaries the untyped rules would put there: readable_boundary).
SizeRule own_rule(const Winner& w, const std::vector<int64_t>& sizes) {
  const auto at = std::ranges::find(sizes, w.bytes);
  return {.lo = at == sizes.begin() ? 0 : readable_boundary(*(at - 1), w.bytes),
          .hi = at + 1 == sizes.end() ? kMaxBytes : readable_boundary(w.bytes, *(at + 1)),
          .algorithm = w.algorithm,
          .params = w.params,
          .median_s = w.median_s,
          .fallbacks = w.fallbacks};
}

// The untyped bucket of nodes measured at np, or null.
const RankBucket* untyped_bucket(const std::vector<RankBucket>& buckets, int nodes, int np) {
  for (const RankBucket& b : buckets)
    if (b.datatypes.empty() && b.nodes == nodes && b.measured_np == np) return &b;
  return nullptr;
}

// What a type that got rules of its own says: where, at how many sizes.
std::string own_line(const TypeGroup& group, std::size_t differ, std::size_t sizes) {
  const auto& [c, transport, nodes, type] = group;
  return std::string(collective_name(c)) + " on " + transport +
         (nodes > 1 ? " (" + std::to_string(nodes) + " nodes)" : "") + ": " + type +
         ": winners other than " + datatype_name(kReferenceType) + "'s at " +
         std::to_string(differ) + " of " + std::to_string(sizes) + " sizes: rules of its own";
}

// The last line: how many of the (reduction, type) pairs got rules.
std::string summary_line(std::size_t own, std::size_t pairs) {
  const std::string reference = datatype_name(kReferenceType);
  if (own == 0)
    return "none of the " + std::to_string(pairs) +
           " (reduction, type) pairs measured chose otherwise than " + reference +
           " at any size: no rules of their own";
  return std::to_string(own) + " of " + std::to_string(pairs) +
         " (reduction, type) pairs measured got rules of their own; the others chose as " +
         reference + " at every size";
}

// A type's own winners at the sizes of one communicator size (np), and
// every size measured there in it.
struct OwnWinners {
  std::vector<Winner> own;
  std::vector<int64_t> sizes;  // ascending
};

// Per communicator size, a type group's rule at each point measured in it.
std::map<int, OwnWinners> own_winners(const PointRows& points, const PointRows& reference,
                                      const std::map<PointKey, const Winner*>& untyped_at) {
  std::map<int, OwnWinners> by_np;
  for (const auto& [key, typed] : points) {
    const auto u = untyped_at.find(key);
    const auto ref = reference.find(key);
    if (u == untyped_at.end() || ref == reference.end()) continue;
    const std::optional<Winner> w = typed_winner(typed, ref->second, *u->second);
    if (!w) continue;
    OwnWinners& at = by_np[w->np];
    at.sizes.push_back(w->bytes);
    if (w->choice != u->second->choice) at.own.push_back(*w);
  }
  return by_np;
}

// The type's buckets: at each communicator size where it has winners of
// its own, the untyped bucket with their ranges spliced in.
void add_buckets(const TypeGroup& group, const std::map<int, OwnWinners>& by_np,
                 const std::map<cct_collective, TransportRules>& untyped_rules, TypedRules& out) {
  const auto& [c, transport, nodes, type_name] = group;
  cct_datatype type;
  const auto rules = untyped_rules.find(c);
  if (!parse_datatype(type_name, &type) || rules == untyped_rules.end() ||
      !rules->second.contains(transport))
    return;
  for (const auto& [np, at] : by_np) {
    const RankBucket* u = untyped_bucket(rules->second.at(transport), nodes, np);
    if (u == nullptr || at.own.empty()) continue;
    RankBucket b = *u;
    b.datatypes = {type};
    for (const Winner& w : at.own) b.sizes = spliced(b.sizes, own_rule(w, at.sizes));
    out.buckets[c][transport].push_back(std::move(b));
  }
}

}  // namespace

TypedRules typed_rules(const std::vector<ResultRow>& rows, const Winners& untyped,
                       const std::map<cct_collective, TransportRules>& untyped_rules,
                       const Registry& registry) {
  std::map<PointKey, const Winner*> untyped_at;
  for (const Winner& w : untyped.best) untyped_at[key_of(w)] = &w;
  const Contenders contenders = contenders_of(rows, registry);
  TypedRules out;
  std::size_t pairs = 0, own = 0;
  for (const auto& [group, points] : contenders.typed) {
    const std::map<int, OwnWinners> by_np = own_winners(points, contenders.reference, untyped_at);
    std::size_t sizes = 0, differ = 0;
    for (const auto& [np, at] : by_np) sizes += at.sizes.size(), differ += at.own.size();
    if (sizes == 0) continue;
    ++pairs;
    if (differ == 0) continue;
    ++own;
    out.report.push_back(own_line(group, differ, sizes));
    add_buckets(group, by_np, untyped_rules, out);
  }
  if (pairs > 0) out.report.push_back(summary_line(own, pairs));
  return out;
}

void add_typed(std::map<cct_collective, TransportRules>& rules, const TypedRules& typed) {
  for (const auto& [c, transports] : typed.buckets)
    for (const auto& [transport, buckets] : transports) {
      std::vector<RankBucket>& into = rules[c][transport];
      into.insert(into.end(), buckets.begin(), buckets.end());
    }
}

}  // namespace cct::tuner
