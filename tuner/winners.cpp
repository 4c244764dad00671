#include "tuner/winners.hpp"

#include <algorithm>
#include <array>
#include <iomanip>
#include <set>
#include <span>
#include <sstream>
#include <tuple>

#include "cct/error.hpp"
#include "cct/units.hpp"

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

// The size ranges of one bucket from its winners, sizes ascending.
std::vector<SizeRule> size_rules(std::span<const Winner> bucket) {
  std::vector<SizeRule> rules;
  for (std::size_t i = 0; i < bucket.size(); ++i) {
    const Winner& w = bucket[i];
    const int64_t hi = i + 1 < bucket.size() ? bucket[i + 1].bytes : kMaxBytes;
    if (!rules.empty() && rules.back().algorithm == w.algorithm && rules.back().params == w.params)
      rules.back().hi = hi;
    else
      rules.push_back({.lo = rules.empty() ? 0 : w.bytes,
                       .hi = hi,
                       .algorithm = w.algorithm,
                       .params = w.params,
                       .median_s = w.median_s});
  }
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
  const std::string nodes = b.nodes > 1 ? " (" + std::to_string(b.nodes) + " nodes)" : "";
  return std::to_string(b.np_lo) + "-" + (b.np_hi == kMaxRanks ? "max" : std::to_string(b.np_hi)) +
         nodes;
}

std::string size_text(const SizeRule& s) {
  return format_bytes(s.lo) + "-" + (s.hi == kMaxBytes ? "max" : format_bytes(s.hi));
}

std::string micros(const std::optional<double>& seconds) {
  if (!seconds) return "-";
  std::ostringstream out;
  out << std::fixed << std::setprecision(2) << *seconds * 1e6;
  return out.str();
}

using Line = std::array<std::string, 6>;

// The lines, each column padded to its widest cell.
std::string aligned(const std::vector<Line>& lines) {
  std::array<std::size_t, 6> width{};
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

// Within this fraction of the fastest, the previous size's winner is kept:
// near-equal algorithms at neighbouring sizes differ by noise, and switching
// between them would cut the profile into many ranges for nothing.
constexpr double kKeepWithin = 0.05;

// The rows that compete in one group: the full measurements where there
// are any, else the pruned ones (a run stopped between screening and the
// final measurement of that size).
std::vector<const Winner*> competing(const std::vector<Winner>& rows,
                                     const std::vector<Stage>& stages) {
  const bool full =
      std::any_of(stages.begin(), stages.end(), [](Stage s) { return s != Stage::kPruned; });
  std::vector<const Winner*> out;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (!full || stages[i] != Stage::kPruned) out.push_back(&rows[i]);
  return out;
}

// The winner among rows, given the previous size's winner.
const Winner* choose(const std::vector<const Winner*>& rows, const Winner* previous) {
  std::vector<double> medians;
  std::optional<std::size_t> kept, library;
  for (const Winner* w : rows) {
    if (previous && same_bucket(*previous, *w) && w->algorithm == previous->algorithm &&
        w->params == previous->params)
      kept = medians.size();
    if (w->library) library = medians.size();
    medians.push_back(w->median_s);
  }
  return rows[choose_winner(medians, kept, library)];
}

}  // namespace

std::size_t choose_winner(std::span<const double> medians, std::optional<std::size_t> previous,
                          std::optional<std::size_t> library) {
  std::size_t fastest = 0;
  for (std::size_t i = 1; i < medians.size(); ++i)
    if (medians[i] < medians[fastest]) fastest = i;
  const auto close = [&](std::optional<std::size_t> i) {
    return i && medians[*i] <= medians[fastest] * (1 + kKeepWithin);
  };
  if (close(library)) return *library;
  if (close(previous)) return *previous;
  return fastest;
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
  w->transport = row.transport;
  w->nodes = row.nodes;
  w->np = row.np;
  w->bytes = row.bytes;
  w->algorithm = row.algorithm;
  w->median_s = row.result.median_s;
  w->library = (alg->desc->required_caps & CCT_CAP_LIBRARY) != 0;
  return "";
}

Winners pick_winners(const std::vector<ResultRow>& rows, const Registry& registry) {
  using Group = std::tuple<cct_collective, std::string, int, int, int64_t>;
  struct Rows {
    std::vector<Winner> winners;
    std::vector<Stage> stages;
  };
  std::map<Group, Rows> groups;
  std::set<std::string> ignored;
  for (const ResultRow& row : rows) {
    Winner w;
    if (row.stage == Stage::kCheck) continue;
    if (const std::string why = read_winner(row, registry, &w); !why.empty()) {
      ignored.insert(why);
      continue;
    }
    Rows& group = groups[Group{w.collective, w.transport, w.nodes, w.np, w.bytes}];
    group.winners.push_back(std::move(w));
    group.stages.push_back(row.stage);
  }
  Winners out{.ignored = {ignored.begin(), ignored.end()}};
  for (const auto& [key, group] : groups) {
    const Winner* previous = out.best.empty() ? nullptr : &out.best.back();
    out.best.push_back(*choose(competing(group.winners, group.stages), previous));
  }
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
  std::vector<Line> lines{{"collective", "transport", "np", "bytes", "algorithm", "median_us"}};
  for (const auto& [collective, transports] : rules)
    for (const auto& [transport, buckets] : transports)
      for (const RankBucket& b : buckets)
        for (const SizeRule& s : b.sizes)
          lines.push_back({collective_name(collective), transport, np_text(b), size_text(s),
                           format_rule_choice(collective, s, registry), micros(s.median_s)});
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
