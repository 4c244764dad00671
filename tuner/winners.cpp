#include "tuner/winners.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iterator>
#include <limits>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <tuple>

#include "cct/error.hpp"
#include "cct/units.hpp"
#include "tuner/one_rule.hpp"
#include "tuner/pattern_figures.hpp"
#include "tuner/segmentation.hpp"

namespace cct::tuner {
namespace {

bool same_comm(const Winner& a, const Winner& b) {
  return a.collective == b.collective && a.transport == b.transport;
}

bool same_nodes(const Winner& a, const Winner& b) {
  return same_comm(a, b) && a.nodes == b.nodes;
}

bool same_bucket(const Winner& a, const Winner& b) {
  return same_nodes(a, b) && a.np == b.np;
}

// The leading winners of all that `same` groups with the first.
template <class Same>
std::span<const Winner> leading_run(std::span<const Winner> all, Same same) {
  const auto end = std::find_if_not(all.begin(), all.end(),
                                    [&](const Winner& w) { return same(all.front(), w); });
  return all.first(end - all.begin());
}

// A range's margin and noise from its sizes' (Winner::margin, noise): the
// geometric mean of the best other's figure over the pick's, and the
// median noise, over the sizes that decided (a size between confirmed
// ones has none: segmentation.hpp). So a range that wins by 30% at most
// of its sizes and ties at the one where it meets its neighbour is not a
// near-tie, as its closest size alone would call it; to three decimals
// (0.234), which say how sure, not figures to compute with.
struct RangeMargin {
  std::vector<double> logs, noises;
  void add(const Winner& w) {
    if (!w.margin) return;
    logs.push_back(std::log1p(*w.margin));
    noises.push_back(w.noise);
  }
  void set(SizeRule& r) {
    if (logs.empty()) return;
    const auto thousandths = [](double x) { return std::round(x * 1000) / 1000; };
    double sum = 0;
    for (const double l : logs) sum += l;
    std::ranges::sort(noises);
    r.margin = thousandths(std::expm1(sum / static_cast<double>(logs.size())));
    r.noise = thousandths(noises[noises.size() / 2]);
  }
};

// The size ranges of one bucket from its winners, sizes ascending.
std::vector<SizeRule> size_rules(std::span<const Winner> bucket) {
  std::vector<SizeRule> rules;
  RangeMargin margin;
  for (std::size_t i = 0; i < bucket.size(); ++i) {
    const Winner& w = bucket[i];
    const int64_t hi =
        i + 1 < bucket.size() ? readable_boundary(w.bytes, bucket[i + 1].bytes) : kMaxBytes;
    if (!rules.empty() && rules.back().algorithm == w.algorithm &&
        rules.back().params == w.params) {
      rules.back().hi = hi;
    } else {
      if (!rules.empty()) margin.set(rules.back());
      margin = {};
      rules.push_back({.lo = rules.empty() ? 0 : rules.back().hi,
                       .hi = hi,
                       .algorithm = w.algorithm,
                       .params = w.params,
                       .median_s = w.median_s,
                       .fallbacks = w.fallbacks});
    }
    margin.add(w);
  }
  if (!rules.empty()) margin.set(rules.back());
  return rules;
}

// Appends the buckets of one (collective, transport, nodes) from its
// winners, np ascending. No communicator of n nodes has fewer than n ranks,
// so the first bucket starts at n.
void add_buckets(std::span<const Winner> shape, std::vector<RankBucket>& out) {
  const int nodes = shape.front().nodes;
  for (bool first = true; !shape.empty(); first = false) {
    const std::span<const Winner> bucket = leading_run(shape, same_bucket);
    shape = shape.subspan(bucket.size());
    out.push_back({.np_lo = first ? nodes : bucket.front().np,
                   .np_hi = shape.empty() ? kMaxRanks : shape.front().np - 1,
                   .nodes = nodes,
                   .measured_np = bucket.front().np,
                   .sizes = size_rules(bucket)});
  }
}

// The buckets of one (collective, transport), by nodes then np.
std::vector<RankBucket> buckets(std::span<const Winner> comm) {
  std::vector<RankBucket> out;
  while (!comm.empty()) {
    const std::span<const Winner> shape = leading_run(comm, same_nodes);
    add_buckets(shape, out);
    comm = comm.subspan(shape.size());
  }
  return out;
}

std::string np_text(const RankBucket& b) {
  std::string notes;
  if (b.nodes > 1) notes = std::to_string(b.nodes) + " nodes";
  if (b.predicted) notes += notes.empty() ? "predicted" : ", predicted";
  return std::to_string(b.np_lo) + "-" + (b.np_hi == kMaxRanks ? "max" : std::to_string(b.np_hi)) +
         (notes.empty() ? "" : " (" + notes + ")");
}

// The collective, and the calls of a bucket of some calls: "allreduce
// (float, double)", "gather (roots other than 0)".
std::string collective_text(cct_collective c, const RankBucket& b) {
  const std::string served = served_calls_text(b);
  return std::string(collective_name(c)) + (served.empty() ? "" : " (" + served + ")");
}

std::string size_text(const SizeRule& s) {
  return format_bytes(s.lo) + "-" + (s.hi == kMaxBytes ? "max" : format_bytes(s.hi));
}

std::string micros(const std::optional<double>& seconds) {
  return seconds ? format_micros(*seconds) : "-";
}

// A rule's margin as people read it: "+23%", or "+2% tie" where it is
// below the noise of its figures (another run may pick otherwise); "-"
// where none was recorded.
std::string margin_text(const SizeRule& s) {
  if (!s.margin) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%+.0f%%%s", *s.margin * 100,
                s.noise && *s.margin < *s.noise ? " tie" : "");
  return text;
}

std::string fallbacks_text(cct_collective c, const SizeRule& s, const Registry& registry) {
  std::string text;
  for (const Fallback& f : s.fallbacks)
    text += (text.empty() ? "" : ", ") + format_rule_choice(c, f, registry);
  return text.empty() ? "-" : text;
}

using Line = std::array<std::string, 8>;

// The lines, each column padded to its widest cell.
std::string aligned(const std::vector<Line>& lines) {
  std::array<std::size_t, 8> width{};
  for (const Line& line : lines)
    for (std::size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
  std::ostringstream out;
  for (const Line& line : lines) {
    for (std::size_t i = 0; i + 1 < line.size(); ++i)
      out << std::left << std::setw(static_cast<int>(width[i] + 2)) << line[i];
    out << line.back() << "\n";
  }
  return out.str();
}

// The bounds of tie_margin.
constexpr double kTieAtLeast = 0.05;
constexpr double kTieAtMost = 0.10;

// How much a row's figure says about what programs see: a confirmation
// (timed as programs call, in one job or the next) over a full measurement
// over a screening round.
constexpr int kConfirmed = 2;
int weight(Stage stage) {
  if (is_confirmation(stage)) return kConfirmed;
  return stage == Stage::kPruned ? 0 : 1;
}

// The rows that compete in one group: those of its weightiest stage, the
// confirmations where there are any, else the full measurements, else the
// pruned ones (a run stopped between screening and the final measurement).
std::vector<const Winner*> competing(const std::vector<Winner>& rows,
                                     const std::vector<Stage>& stages) {
  int best = 0;
  for (Stage s : stages) best = std::max(best, weight(s));
  std::vector<const Winner*> out;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (weight(stages[i]) == best) out.push_back(&rows[i]);
  return out;
}

// The full and screening timings of a group whose competing rows are
// confirmations (none otherwise), a full one before a screening one of the
// same candidate: what the segmentation scales to the confirmations for
// the candidates not confirmed there.
std::vector<SizeFigures::Timed> timed_beside_confirmed(const std::vector<Winner>& rows,
                                                       const std::vector<Stage>& stages) {
  std::vector<SizeFigures::Timed> out;
  if (std::none_of(stages.begin(), stages.end(), [](Stage s) { return weight(s) == kConfirmed; }))
    return out;
  for (const int w : {1, 0})
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (weight(stages[i]) == w && std::ranges::none_of(out, [&](const SizeFigures::Timed& t) {
            return t.row->choice == rows[i].choice;
          }))
        out.push_back({&rows[i], w == 1});
  return out;
}

// rows, and the screening figure of every candidate pruned at that size.
std::vector<const Winner*> with_pruned(std::vector<const Winner*> rows,
                                       const std::vector<Winner>& all) {
  const std::size_t competing = rows.size();
  for (const Winner& w : all)
    if (std::none_of(rows.begin(), rows.begin() + competing,
                     [&](const Winner* r) { return r->choice == w.choice; }))
      rows.push_back(&w);
  return rows;
}

// Each bucket's picks: its sizes segmented as one (segmentation.hpp),
// the figures' rows ordered by point group as pick_winners makes them.
void segment_buckets(std::span<const SizeFigures> figures, Winners& out) {
  for (std::size_t start = 0; start < figures.size();) {
    const Winner& first = *figures[start].competing.front();
    std::size_t end = start + 1;
    while (end < figures.size() && same_bucket(first, *figures[end].competing.front())) ++end;
    Segmentation picked = segment(figures.subspan(start, end - start));
    std::move(picked.picks.begin(), picked.picks.end(), std::back_inserter(out.best));
    start = end;
  }
}

}  // namespace

std::map<AgreementShape, double> agreements(const std::vector<ResultRow>& rows) {
  const char* sum = collective_info(CCT_ALLREDUCE).default_algorithm;
  std::map<AgreementShape, std::pair<int, double>> found;  // (weight of its stage, figure)
  for (const ResultRow& r : rows) {
    if (r.collective != collective_name(CCT_ALLREDUCE) || r.algorithm != sum || r.bytes != 8 ||
        is_check(r.stage) || r.stage == Stage::kFailed || of_variant(r.stage))
      continue;
    auto [at, added] =
        found.try_emplace({r.transport, r.nodes, r.np}, weight(r.stage), r.result.median_s);
    const int w = weight(r.stage);
    if (!added && (w > at->second.first || (w == kConfirmed && w == at->second.first &&
                                            r.result.median_s > at->second.second)))
      at->second = {w, r.result.median_s};  // of two jobs' confirmations, the slower
  }
  std::map<AgreementShape, double> out;
  for (const auto& [shape, figure] : found) out[shape] = figure.second;
  return out;
}

namespace {

// Gives each bucket that one_rule finds one rule for every size.
void one_rule_buckets(std::span<const SizeCandidates> sizes,
                      const std::map<AgreementShape, double>& agreed, Winners& out) {
  for (std::size_t start = 0; start < sizes.size();) {
    std::size_t end = start + 1;
    while (end < sizes.size() && same_bucket(out.best[start], out.best[end])) ++end;
    const Winner& w = out.best[start];
    const auto measured = agreed.find({w.transport, w.nodes, w.np});
    const std::optional<double> agreement_s =
        measured == agreed.end() ? std::nullopt : std::optional<double>(measured->second);
    if (std::optional<OneRule> one = one_rule(sizes.subspan(start, end - start), agreement_s)) {
      std::copy(one->winners.begin(), one->winners.end(), out.best.begin() + start);
      out.one_rule.push_back(std::move(one->note));
    }
    start = end;
  }
}

}  // namespace

double tie_margin(const Contender& fastest) {
  const double spread =
      fastest.median_s > 0 ? (fastest.median_s - fastest.min_s) / fastest.median_s : 0;
  return std::clamp(spread, kTieAtLeast, kTieAtMost);
}

std::size_t choose_winner(std::span<const Contender> contenders) {
  std::size_t fastest = 0;
  for (std::size_t i = 1; i < contenders.size(); ++i)
    if (contenders[i].median_s < contenders[fastest].median_s) fastest = i;
  const double tied_below = contenders[fastest].median_s * (1 + tie_margin(contenders[fastest]));
  const auto first_tied = [&](auto preferred) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < contenders.size(); ++i)
      if (contenders[i].median_s <= tied_below && preferred(contenders[i])) return i;
    return std::nullopt;
  };
  for (bool Contender::*preferred : {&Contender::library, &Contender::previous})
    if (const auto i = first_tied([&](const Contender& c) { return c.*preferred; })) return *i;
  const std::string_view algorithm = contenders[fastest].algorithm;
  if (const auto i = first_tied(
          [&](const Contender& c) { return c.default_params && c.algorithm == algorithm; }))
    return *i;
  return fastest;
}

std::vector<Fallback> fallbacks_of(const Winner& winner, std::span<const Winner* const> rows) {
  const auto fastest = [&](auto wanted) {
    const Winner* best = nullptr;
    for (const Winner* r : rows)
      if (r->algorithm != winner.algorithm && wanted(*r) &&
          (best == nullptr || r->median_s < best->median_s))
        best = r;
    return best;
  };
  std::vector<Fallback> out;
  const Winner* other = fastest([&](const Winner& r) { return r.library != winner.library; });
  const Winner* next = fastest([&](const Winner& r) {
    return !r.library && (other == nullptr || r.algorithm != other->algorithm);
  });
  for (const Winner* r : {other, next})
    if (r != nullptr)
      out.push_back({.algorithm = r->algorithm, .params = r->params, .median_s = r->median_s});
  return out;
}

int64_t readable_boundary(int64_t lo, int64_t hi) {
  const int bits = std::bit_width(static_cast<uint64_t>(hi));
  for (int kept = 1; kept < bits; ++kept) {
    const int64_t truncated = hi & ~((int64_t{1} << (bits - kept)) - 1);
    if (truncated > lo) return truncated;
  }
  return hi;
}

Contender as_contender(const Winner& w, bool previous) {
  return {.median_s = w.median_s,
          .min_s = w.min_s,
          .algorithm = w.algorithm,
          .library = w.library,
          .previous = previous,
          .default_params = w.default_params};
}

std::string read_winner(const ResultRow& row, const Registry& registry, Winner* w) {
  if (!parse_collective(row.collective, &w->collective))
    return "unknown collective '" + row.collective + "'";
  const AlgorithmEntry* alg = registry.find_algorithm(w->collective, row.algorithm);
  if (!alg) return row.collective + "/" + row.algorithm + ": not registered";
  std::vector<int64_t> values;
  try {
    values = parse_params(*alg->desc, row.params);
  } catch (const Error& e) {
    return row.collective + "/" + e.what();
  }
  for (uint32_t i = 0; i < alg->desc->nparams; ++i) {
    const cct_param_desc& p = alg->desc->params[i];
    if (const std::string why = param_value_problem(p, values[i]); !why.empty())
      return row.collective + "/" + row.algorithm + " parameter " + p.name + ": " + why;
    w->params[p.name] = values[i];
  }
  w->choice = format_choice(*alg->desc, values);
  w->default_params = values == alg->default_params();
  w->transport = row.transport;
  w->nodes = row.nodes;
  w->np = row.np;
  w->bytes = row.bytes;
  w->algorithm = row.algorithm;
  w->median_s = row.result.median_s;
  w->min_s = row.result.min_s;
  w->library = (alg->desc->required_caps & CCT_CAP_LIBRARY) != 0;
  return "";
}

namespace {

// The rows of one size of one shape.
struct Rows {
  std::vector<Winner> winners;
  std::vector<Stage> stages;
  std::vector<std::string> counts;  // a vector collective's count patterns, as rows say them
};

// A candidate confirmed in two jobs (confirm, then reconfirm in fresh
// processes) competes with the slower of its two figures, in each count
// pattern: a pick must hold in every process it was timed in. True when w
// was merged into group.
bool merged_confirmation(Rows& group, const Winner& w, Stage stage, const std::string& counts) {
  if (weight(stage) != kConfirmed) return false;
  for (std::size_t i = 0; i < group.winners.size(); ++i)
    if (weight(group.stages[i]) == kConfirmed && group.winners[i].choice == w.choice &&
        group.counts[i] == counts) {
      const Winner& first = group.winners[i];
      const double apart = std::max(w.median_s, first.median_s) /
                               std::max(std::min(w.median_s, first.median_s), 1e-12) -
                           1;
      if (w.median_s > first.median_s) group.winners[i] = w;
      group.winners[i].jobs_apart = std::max(apart, first.jobs_apart);
      return true;
    }
  return false;
}

// The confirmed rows of choice in a group, one per pattern it has of
// patterns, in their order.
std::vector<const Winner*> confirmed_rows(const Rows& group, const std::string& choice,
                                          const std::vector<std::string>& patterns) {
  std::vector<const Winner*> rows;
  for (const std::string& pattern : patterns)
    for (std::size_t i = 0; i < group.winners.size(); ++i)
      if (weight(group.stages[i]) == kConfirmed && group.winners[i].choice == choice &&
          group.counts[i] == pattern)
        rows.push_back(&group.winners[i]);
  return rows;
}

// A vector collective confirmed in each count pattern apart: one row per
// candidate, with its worst-pattern figure (pattern_figures.hpp), among the
// candidates confirmed in every pattern of the first one (a run stopped
// between two patterns leaves some with fewer).
void combine_patterns(Rows& group) {
  std::vector<std::string> patterns, choices;
  for (std::size_t i = 0; i < group.winners.size(); ++i) {
    if (weight(group.stages[i]) != kConfirmed) continue;
    if (choices.empty() || group.winners[i].choice == choices.front())
      patterns.push_back(group.counts[i]);
    if (std::find(choices.begin(), choices.end(), group.winners[i].choice) == choices.end())
      choices.push_back(group.winners[i].choice);
  }
  if (patterns.size() < 2) return;
  std::vector<std::vector<PointResult>> by_pattern;
  std::vector<Winner> confirmed;
  for (const std::string& choice : choices) {
    std::vector<const Winner*> rows = confirmed_rows(group, choice, patterns);
    if (rows.size() != patterns.size()) continue;
    by_pattern.emplace_back();
    for (const Winner* r : rows)
      by_pattern.back().push_back({.median_s = r->median_s, .min_s = r->min_s});
    confirmed.push_back(*rows.front());
    for (const Winner* r : rows)
      confirmed.back().jobs_apart = std::max(confirmed.back().jobs_apart, r->jobs_apart);
  }
  std::optional<std::size_t> library;
  for (std::size_t c = 0; c < confirmed.size(); ++c)
    if (confirmed[c].library) library = c;
  const std::vector<PointResult> worst = worst_pattern_figures(by_pattern, library);
  Rows combined;
  for (std::size_t i = 0; i < group.winners.size(); ++i)
    if (weight(group.stages[i]) != kConfirmed) {
      combined.winners.push_back(group.winners[i]);
      combined.stages.push_back(group.stages[i]);
      combined.counts.push_back(group.counts[i]);
    }
  for (std::size_t c = 0; c < confirmed.size(); ++c) {
    confirmed[c].median_s = worst[c].median_s;
    confirmed[c].min_s = worst[c].min_s;
    combined.winners.push_back(std::move(confirmed[c]));
    combined.stages.push_back(Stage::kConfirm);
    combined.counts.push_back("");  // all of them
  }
  group = std::move(combined);
}

}  // namespace

Winners pick_winners(const std::vector<ResultRow>& rows, const Registry& registry) {
  using Group = std::tuple<cct_collective, std::string, int, int, int64_t>;
  std::map<Group, Rows> groups;
  std::set<std::string> ignored;
  const std::set<std::string> failed = failed_candidates(rows);
  for (const ResultRow& row : rows) {
    Winner w;
    // A candidate that failed once in a shape is never chosen there.
    // A row of a variant of the call (an element type, a root) weighs in
    // that variant's rules alone (variant_rules.hpp).
    if (is_check(row.stage) || of_variant(row.stage) || failed.contains(row.candidate())) continue;
    if (const std::string why = read_winner(row, registry, &w); !why.empty()) {
      ignored.insert(why);
      continue;
    }
    Rows& group = groups[Group{w.collective, w.transport, w.nodes, w.np, w.bytes}];
    if (merged_confirmation(group, w, row.stage, row.counts)) continue;
    group.winners.push_back(std::move(w));
    group.stages.push_back(row.stage);
    group.counts.push_back(row.counts);
  }
  for (auto& [key, group] : groups) combine_patterns(group);
  Winners out{.ignored = {ignored.begin(), ignored.end()}};
  std::vector<SizeCandidates> sizes;
  std::vector<SizeFigures> figures;
  for (const auto& [key, group] : groups) {
    const std::vector<const Winner*> rows = competing(group.winners, group.stages);
    out.contenders.emplace_back();
    for (const Winner* w : rows) out.contenders.back().push_back(*w);
    sizes.push_back({.rows = with_pruned(rows, group.winners)});
    figures.push_back({.bytes = rows.front()->bytes,
                       .competing = rows,
                       .timed = timed_beside_confirmed(group.winners, group.stages),
                       .confirmed = std::ranges::any_of(group.stages, is_confirmation)});
    for (const Winner& w : group.winners) figures.back().measured.push_back(w.choice);
  }
  segment_buckets(figures, out);
  for (std::size_t i = 0; i < sizes.size(); ++i) sizes[i].winner = &out.best[i];
  one_rule_buckets(sizes, agreements(rows), out);
  for (std::size_t i = 0; i < sizes.size(); ++i)
    out.best[i].fallbacks = fallbacks_of(out.best[i], sizes[i].rows);
  return out;
}

std::map<cct_collective, TransportRules> build_rules(const std::vector<Winner>& winners) {
  std::map<cct_collective, TransportRules> rules;
  for (std::span<const Winner> rest(winners); !rest.empty();) {
    const std::span<const Winner> comm = leading_run(rest, same_comm);
    rules[comm.front().collective][comm.front().transport] = buckets(comm);
    rest = rest.subspan(comm.size());
  }
  return rules;
}

std::string rules_table(const std::map<cct_collective, TransportRules>& rules,
                        const Registry& registry) {
  std::vector<Line> lines{
      {"collective", "transport", "np", "bytes", "algorithm", "median_us", "margin", "fallbacks"}};
  for (const auto& [collective, transports] : rules)
    for (const auto& [transport, buckets] : transports)
      for (const RankBucket& b : buckets)
        for (const SizeRule& s : b.sizes)
          lines.push_back({collective_text(collective, b), transport, np_text(b), size_text(s),
                           format_rule_choice(collective, s, registry), micros(s.median_s),
                           margin_text(s), fallbacks_text(collective, s, registry)});
  return aligned(lines);
}

std::string library_kept(const std::map<cct_collective, TransportRules>& rules,
                         const Registry& registry) {
  std::string library;
  int kept = 0, ranges = 0;
  for (const auto& [collective, transports] : rules)
    for (const auto& [transport, buckets] : transports)
      for (const RankBucket& b : buckets)
        for (const SizeRule& s : b.sizes) {
          ++ranges;
          const AlgorithmEntry* alg = registry.find_algorithm(collective, s.algorithm);
          if (alg != nullptr && (alg->desc->required_caps & CCT_CAP_LIBRARY)) {
            ++kept;
            library = s.algorithm;
          }
        }
  if (kept == 0) return "";
  return "the MPI library's own call (" + library + ") kept in " + std::to_string(kept) + " of " +
         std::to_string(ranges) + " size ranges\n";
}

}  // namespace cct::tuner
