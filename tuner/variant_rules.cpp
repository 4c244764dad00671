#include "tuner/variant_rules.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <tuple>

#include "cct/collectives.hpp"
#include "cct/error.hpp"
#include "tuner/search.hpp"
#include "tuner/segmentation.hpp"
#include "tuner/shape_text.hpp"

namespace cct::tuner {
namespace {

// A measured point: collective, transport, nodes, np, bytes.
using PointKey = std::tuple<cct_collective, std::string, int, int, int64_t>;
// What gets rules of its own: collective, transport, nodes, variant.
using VariantGroup = std::tuple<cct_collective, std::string, int, std::string>;
using PointRows = std::map<PointKey, std::vector<Winner>>;

// The facts of a kind of variant.
struct VariationFacts {
  const char* name;  // variation_name
  Stage stage;       // of its rows, the reference's and the variants'
  // The reference and what the summary counts, as the report names them.
  const char* reference;
  const char* measured;
  // The variant a row of the stage is of ("double", "roots other than
  // 0"), empty for the reference.
  std::string (*variant_of)(const ResultRow& row);
  // Gives bucket b to the variant named; false where that is none.
  bool (*give)(const std::string& variant, RankBucket& b);
};

std::string type_of(const ResultRow& row) {
  return row.datatype == datatype_name(kReferenceType) ? "" : row.datatype;
}

bool give_type(const std::string& variant, RankBucket& b) {
  cct_datatype type;
  if (!parse_datatype(variant, &type)) return false;
  b.datatypes = {type};
  return true;
}

std::string roots_of(const ResultRow& row) {
  return row.root.value_or(0) == 0 ? "" : kNonzeroRootsText;
}

bool give_roots(const std::string&, RankBucket& b) {
  b.nonzero_roots = true;
  return true;
}

// By Variation.
const VariationFacts kVariations[] = {
    {"element types", Stage::kTyped, datatype_name(kReferenceType), "(reduction, type) pairs",
     type_of, give_type},
    {"roots", Stage::kRooted, "root 0", "rooted collectives", roots_of, give_roots},
};

PointKey key_of(const Winner& w) {
  return {w.collective, w.transport, w.nodes, w.np, w.bytes};
}

// The variation's rows as winners: those of the reference (search.hpp,
// steps 6 and 7), which the others are weighed against, and the others by
// variant group. A candidate that failed in a shape is left out of it, as
// pick_winners leaves it out.
struct Contenders {
  std::map<VariantGroup, PointRows> variants;
  PointRows reference;
};

Contenders contenders_of(const VariationFacts& facts, const std::vector<ResultRow>& rows,
                         const Registry& registry) {
  const std::set<std::string> failed = failed_candidates(rows);
  Contenders out;
  for (const ResultRow& row : rows) {
    Winner w;
    if (row.stage != facts.stage || failed.contains(row.candidate()) ||
        !read_winner(row, registry, &w).empty())
      continue;
    const std::string variant = facts.variant_of(row);
    PointRows& into = variant.empty() ? out.reference
                                      : out.variants[{w.collective, w.transport, w.nodes, variant}];
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

// Whether a beats b among rows (their figures of one variant) beyond the
// noise: b preferred, a still wins. Where a and b are tied in the
// reference, the tie margin of one variant's figures against another's
// decides nothing: a variant's winner differs where the two order them
// oppositely, each beyond its noise, or far apart (far_ahead; with tie
// margins alone, int32 rows measured again as uint32, the same
// instructions, gave one or two of six reductions rules of their own in
// each of three runs).
bool beats(const Winner& a, const Winner& b, const std::vector<Winner>& rows) {
  std::vector<const Winner*> pair;
  for (const Winner& w : rows)
    if (w.choice == a.choice || w.choice == b.choice) pair.push_back(&w);
  const Winner* winner = winner_of(pair, b.choice);
  return winner != nullptr && winner->choice == a.choice;
}

// b's figure over a's among rows (of one variant), or nothing where either
// has none.
std::optional<double> ratio(const Winner& b, const Winner& a, const std::vector<Winner>& rows) {
  const auto row_of = [&](const Winner& x) {
    return std::ranges::find(rows, x.choice, &Winner::choice);
  };
  const auto ra = row_of(a), rb = row_of(b);
  if (ra == rows.end() || rb == rows.end() || ra->median_s <= 0) return std::nullopt;
  return rb->median_s / ra->median_s;
}

// Whether the variant puts a ahead of b by more than twice a's noise
// (tie_margin of its figure in the variant), and moves it so far from
// where the reference puts them. Where the reference ties a and b, a
// variant that puts them so far apart is no chance of the tie margins: on
// the simulator (no noise), gather of 64 B at root 15 takes 1.51x longer
// with switch_gather than with linear, which root 0 ties (switch_gather 4%
// ahead). The move counts too: with b 6% behind in the reference's tie and
// 11% in the variant's, a 5% move (tuning at 20 ms a point) made rules of
// its own.
bool far_ahead(const Winner& a, const Winner& b, const std::vector<Winner>& variant,
               const std::vector<Winner>& reference) {
  const std::optional<double> there = ratio(b, a, variant), before = ratio(b, a, reference);
  if (!there || !before) return false;
  const auto ra = std::ranges::find(variant, a.choice, &Winner::choice);
  const double beyond = 1 + 2 * tie_margin(as_contender(*ra, false));
  return *there > beyond && *there / *before > beyond;
}

// The variant winner's fallbacks: the plain winner (of every call) where
// it is another, then the plain winner's fallbacks; each with its figure
// in this variant where it was measured in it.
std::vector<Fallback> variant_fallbacks(const Winner& variant, const Winner& plain,
                                        const std::vector<Winner>& rows) {
  const auto figure = [&](const std::string& algorithm, const std::map<std::string, int64_t>& p) {
    std::optional<double> out;
    for (const Winner& w : rows)
      if (w.algorithm == algorithm && w.params == p) out = w.median_s;
    return out;
  };
  std::vector<Fallback> out;
  const auto add = [&](const std::string& algorithm, const std::map<std::string, int64_t>& p) {
    if (algorithm != variant.algorithm || p != variant.params)
      out.push_back({.algorithm = algorithm, .params = p, .median_s = figure(algorithm, p)});
  };
  add(plain.algorithm, plain.params);
  for (const Fallback& f : plain.fallbacks) add(f.algorithm, f.params);
  return out;
}

// The variant's own winner at a point: the winner of its rows where it
// differs from the reference winner `base` among the same candidates,
// timed with them, and the two order these candidates oppositely, each
// beyond the noise, or the variant puts its winner far ahead (far_ahead);
// else nothing, the variant changing nothing there.
std::optional<Winner> own_winner(const std::vector<Winner>& variant,
                                 const std::vector<Winner>& reference, const Winner& base) {
  const Winner* w = winner_of(pointers(variant), base.choice);
  if (w->choice == base.choice ||
      !(beats(base, *w, reference) || far_ahead(*w, base, variant, reference)))
    return std::nullopt;
  return *w;
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

// The rule of a variant's own winner w at its size, over the sizes up to
// where its neighbours among the sizes measured in the variant take over
// (the boundaries the plain rules would put there: readable_boundary).
SizeRule own_rule(const Winner& w, const std::vector<int64_t>& sizes) {
  const auto at = std::ranges::find(sizes, w.bytes);
  return {.lo = at == sizes.begin() ? 0 : readable_boundary(*(at - 1), w.bytes),
          .hi = at + 1 == sizes.end() ? kMaxBytes : readable_boundary(w.bytes, *(at + 1)),
          .algorithm = w.algorithm,
          .params = w.params,
          .median_s = w.median_s,
          .fallbacks = w.fallbacks};
}

// The bucket of every call of nodes measured at np, or null.
const RankBucket* plain_bucket(const std::vector<RankBucket>& buckets, int nodes, int np) {
  for (const RankBucket& b : buckets)
    if (served_calls_text(b).empty() && b.nodes == nodes && b.measured_np == np) return &b;
  return nullptr;
}

// What a variant that got rules of its own says: where, at how many sizes.
std::string own_line(const VariationFacts& facts, const VariantGroup& group, std::size_t differ,
                     std::size_t sizes) {
  const auto& [c, transport, nodes, variant] = group;
  return std::string(collective_name(c)) + " on " + transport + nodes_text(nodes) + ": " + variant +
         ": winners other than " + facts.reference + "'s at " + std::to_string(differ) + " of " +
         std::to_string(sizes) + " sizes: rules of its own";
}

// The last line: how many of the groups measured got rules.
std::string summary_line(const VariationFacts& facts, std::size_t own, std::size_t groups) {
  const std::string measured = " " + std::string(facts.measured) + " measured ";
  if (own == 0)
    return "none of the " + std::to_string(groups) + measured + "chose otherwise than " +
           facts.reference + " at any size: no rules of their own";
  return std::to_string(own) + " of " + std::to_string(groups) + measured +
         "got rules of their own; the others chose as " + facts.reference + " at every size";
}

// A variant's own winners at the sizes of one communicator size (np), and
// every size measured there in it.
struct OwnWinners {
  std::vector<Winner> own;
  std::vector<int64_t> sizes;  // ascending
};

// One measured size of a variant at one communicator size: its rows, the
// reference winner's choice among them, the rule of every call there, and
// the variant's own winner where own_winner gives one.
struct VariantSize {
  const std::vector<Winner>* rows;
  std::string base;
  const Winner* plain;
  std::optional<Winner> own;
};

// The choice that stands for "the rule of every call" among a size's
// figures as the segmentation weighs them; no candidate's choice is empty.
const std::string kPlainChoice;

// A size's figures as the variant's segmentation weighs them: the
// reference winner's figure in the variant as the rule of every call,
// preferred as the library's call is (it wins every tie within the noise);
// the variant's own winner there as measured; every other candidate no
// faster than the rule of every call, since own_winner found no cause
// to leave it there (a range of the own winner may go on across such a
// size where it ties). Empty where the variant did not measure the
// reference winner: nothing to weigh the rule of every call by.
std::vector<Winner> weighed(const VariantSize& s) {
  const auto base = std::ranges::find(*s.rows, s.base, &Winner::choice);
  if (base == s.rows->end()) return {};
  Winner plain = *base;
  plain.choice = kPlainChoice;
  plain.algorithm.clear();
  plain.library = true;
  plain.default_params = true;
  std::vector<Winner> out{plain};
  for (Winner w : *s.rows) {
    if (w.choice == s.base) continue;
    if (!s.own || s.own->choice != w.choice) {
      w.median_s = std::max(w.median_s, base->median_s);
      w.min_s = std::max(w.min_s, base->min_s);
    }
    w.library = false;
    out.push_back(std::move(w));
  }
  return out;
}

// A variant measures each size's winner and two fastest finalists of the
// plain search, so one algorithm's parameter values come and go from one
// size to the next (gather at roots other than 0, 128 KiB - 4 MiB:
// linear_throttled with max_outstanding 2, 1, 8, 2, each measured at its
// sizes alone, each its own range). A value not measured at a size where
// other values of its algorithm were stands in with the fastest of their
// figures there (no faster than one measured), so that a range of one
// value goes on across it rather than switch to a value the variant had
// no cause to prefer; its row is that one's with the value's own
// parameters. A value measured at a size keeps its own figure there.
void stand_in_values(std::vector<std::vector<Winner>>& rows) {
  std::vector<Winner> values;  // a row of each choice, for its parameters (a copy: rows grows)
  for (const std::vector<Winner>& r : rows)
    for (const Winner& w : r)
      if (!w.algorithm.empty() &&
          std::ranges::find(values, w.choice, &Winner::choice) == values.end())
        values.push_back(w);
  for (std::vector<Winner>& r : rows) {
    const std::size_t measured = r.size();
    for (const Winner& value : values) {
      if (std::ranges::find(r, value.choice, &Winner::choice) != r.end()) continue;
      const Winner* fastest = nullptr;
      for (std::size_t i = 0; i < measured; ++i)
        if (r[i].algorithm == value.algorithm &&
            (fastest == nullptr || r[i].median_s < fastest->median_s))
          fastest = &r[i];
      if (fastest == nullptr) continue;
      Winner stand_in = *fastest;
      stand_in.choice = value.choice;
      stand_in.params = value.params;
      stand_in.default_params = value.default_params;
      r.push_back(std::move(stand_in));
    }
  }
}

// The variant's own winners among sizes (ascending), made as one
// segmentation (segmentation.hpp) against the rule of every call: a range
// of its own only where it saves more than the noise and the price of its
// switches, so that a variant does not splice one-size ranges into the
// rules (gather at roots other than 0 had three values of
// linear_throttled at neighbouring sizes, each its own range).
OwnWinners segmented(const std::vector<VariantSize>& sizes) {
  OwnWinners out;
  std::vector<std::vector<Winner>> rows;
  std::vector<const VariantSize*> kept;
  for (const VariantSize& s : sizes) {
    out.sizes.push_back(s.plain->bytes);
    std::vector<Winner> w = weighed(s);
    if (w.empty()) continue;
    rows.push_back(std::move(w));
    kept.push_back(&s);
  }
  stand_in_values(rows);
  // Every choice counts as measured at every size: one absent at a size
  // has no figure there, none interpolated (which would escape the cap of
  // weighed).
  std::vector<std::string> choices;
  for (const std::vector<Winner>& r : rows)
    for (const Winner& w : r)
      if (std::ranges::find(choices, w.choice) == choices.end()) choices.push_back(w.choice);
  std::vector<SizeFigures> figures;
  for (const std::vector<Winner>& r : rows) {
    SizeFigures f{.bytes = r.front().bytes, .measured = choices};
    for (const Winner& w : r) f.competing.push_back(&w);
    figures.push_back(std::move(f));
  }
  if (figures.empty()) return out;
  const Segmentation picked = segment(figures);
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (picked.picks[i].choice == kPlainChoice) continue;
    const VariantSize& s = *kept[i];
    Winner own = *std::ranges::find(rows[i], picked.picks[i].choice, &Winner::choice);
    own.fallbacks = variant_fallbacks(own, *s.plain, *s.rows);
    out.own.push_back(std::move(own));
  }
  return out;
}

// Per communicator size, a variant group's own winners, segmented.
std::map<int, OwnWinners> own_winners(const PointRows& points, const PointRows& reference,
                                      const std::map<PointKey, const Winner*>& plain_at) {
  std::map<int, std::vector<VariantSize>> by_np;
  for (const auto& [key, rows] : points) {
    const auto u = plain_at.find(key);
    const auto ref = reference.find(key);
    if (u == plain_at.end() || ref == reference.end()) continue;
    const Winner* base = winner_of(pointers(ref->second), u->second->choice);
    if (base == nullptr) continue;
    std::optional<Winner> w = own_winner(rows, ref->second, *base);
    if (w && w->choice == u->second->choice) w.reset();  // the rule of every call's
    by_np[u->second->np].push_back({&rows, base->choice, u->second, std::move(w)});
  }
  std::map<int, OwnWinners> out;
  for (const auto& [np, sizes] : by_np) out[np] = segmented(sizes);
  return out;
}

// Whether rules choose one candidate (algorithm and values) for every size.
bool one_choice(const std::vector<SizeRule>& rules) {
  return std::ranges::all_of(rules, [&](const SizeRule& r) {
    return r.algorithm == rules.front().algorithm && r.params == rules.front().params;
  });
}

// The variant's buckets: at each communicator size where it has winners
// of its own, the plain bucket with their ranges spliced in. A collective
// whose size no rank knows alone (gatherv, scatterv, alltoallv) makes its
// calls agree on their size only where their rules choose by size
// (Runtime::agreement): where the plain bucket has one rule for every size
// (one_rule.hpp), a variant's bucket that would choose by size is left
// out, and said, so that its calls do not pay the agreement the plain
// rule had removed.
void add_buckets(const VariationFacts& facts, const VariantGroup& group,
                 const std::map<int, OwnWinners>& by_np,
                 const std::map<cct_collective, TransportRules>& plain_rules, VariantRules& out) {
  const auto& [c, transport, nodes, variant] = group;
  const auto rules = plain_rules.find(c);
  if (rules == plain_rules.end() || !rules->second.contains(transport)) return;
  for (const auto& [np, at] : by_np) {
    const RankBucket* u = plain_bucket(rules->second.at(transport), nodes, np);
    if (u == nullptr || at.own.empty()) continue;
    RankBucket b = *u;
    if (!facts.give(variant, b)) return;
    for (const Winner& w : at.own) b.sizes = spliced(b.sizes, own_rule(w, at.sizes));
    if (collective_info(c).key_parts != nullptr && one_choice(u->sizes) && !one_choice(b.sizes)) {
      out.report.push_back(std::string(collective_name(c)) + " on " + transport +
                           nodes_text(nodes) + " np=" + std::to_string(np) + ": " + variant +
                           ": no rules of its own: choosing by size would make each of its calls "
                           "agree on its size first, which the one rule of every call avoids");
      continue;
    }
    out.buckets[c][transport].push_back(std::move(b));
  }
}

}  // namespace

VariantRules variant_rules(Variation variation, const std::vector<ResultRow>& rows,
                           const Winners& plain,
                           const std::map<cct_collective, TransportRules>& plain_rules,
                           const Registry& registry) {
  const VariationFacts& facts = kVariations[static_cast<int>(variation)];
  std::map<PointKey, const Winner*> plain_at;
  for (const Winner& w : plain.best) plain_at[key_of(w)] = &w;
  const Contenders contenders = contenders_of(facts, rows, registry);
  VariantRules out;
  std::size_t groups = 0, own = 0;
  for (const auto& [group, points] : contenders.variants) {
    const std::map<int, OwnWinners> by_np = own_winners(points, contenders.reference, plain_at);
    std::size_t sizes = 0, differ = 0;
    for (const auto& [np, at] : by_np) sizes += at.sizes.size(), differ += at.own.size();
    if (sizes == 0) continue;
    ++groups;
    out.measured.insert({std::get<0>(group), std::get<1>(group)});
    if (differ == 0) continue;
    ++own;
    out.report.push_back(own_line(facts, group, differ, sizes));
    add_buckets(facts, group, by_np, plain_rules, out);
  }
  if (groups > 0) out.report.push_back(summary_line(facts, own, groups));
  return out;
}

const char* variation_name(Variation variation) {
  return kVariations[static_cast<int>(variation)].name;
}

std::optional<Variation> variation_of(Stage stage) {
  for (Variation v : kEveryVariation)
    if (kVariations[static_cast<int>(v)].stage == stage) return v;
  return std::nullopt;
}

void add_variants(std::map<cct_collective, TransportRules>& rules, const VariantRules& variants) {
  for (const auto& [c, transports] : variants.buckets)
    for (const auto& [transport, buckets] : transports) {
      std::vector<RankBucket>& into = rules[c][transport];
      into.insert(into.end(), buckets.begin(), buckets.end());
    }
}

}  // namespace cct::tuner
