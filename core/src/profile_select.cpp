// The compiled lookup: for one transport and one communicator shape, a short
// list of ranges per collective, resolved against the registry up front so
// that select() only compares integers.
#include <optional>
#include <set>

#include "cct/error.hpp"
#include "cct/profile.hpp"
#include "profile_check.hpp"

namespace cct {
namespace {

// The buckets of (c, transport), or nullptr.
const std::vector<RankBucket>* buckets_of(const Profile& profile, cct_collective c,
                                          std::string_view transport) {
  auto by_collective = profile.rules.find(c);
  if (by_collective == profile.rules.end()) return nullptr;
  auto by_transport = by_collective->second.find(std::string(transport));
  if (by_transport == by_collective->second.end()) return nullptr;
  return &by_transport->second;
}

// The profile's bucket for (c, transport, nodes, np), or nullptr.
const RankBucket* bucket_for(const Profile& profile, cct_collective c, std::string_view transport,
                             int nodes, int np) {
  if (const std::vector<RankBucket>* buckets = buckets_of(profile, c, transport))
    for (const RankBucket& b : *buckets)
      if (b.nodes == nodes && np >= b.np_lo && np <= b.np_hi) return &b;
  return nullptr;
}

// The node count whose rules stand for `nodes` on this transport: `nodes`
// when some collective was tuned for it (or none was tuned at all), else
// the largest tuned count below it, else the smallest above. Decided for
// the whole transport, not per collective, so that one run never mixes the
// rules of different shapes.
int closest_tuned_nodes(const Profile& profile, std::string_view transport, int nodes) {
  std::optional<int> below, above;
  for (int i = 0; i < CCT_COLLECTIVE_COUNT; ++i)
    if (const auto* buckets = buckets_of(profile, static_cast<cct_collective>(i), transport))
      for (const RankBucket& b : *buckets) {
        if (b.nodes == nodes) return nodes;
        if (b.nodes < nodes && (!below || b.nodes > *below)) below = b.nodes;
        if (b.nodes > nodes && (!above || b.nodes < *above)) above = b.nodes;
      }
  return below ? *below : above ? *above : nodes;
}

std::size_t to_size(int64_t bytes) {
  return bytes == kMaxBytes ? SIZE_MAX : static_cast<std::size_t>(bytes);
}

}  // namespace

Selector::Selector(const Profile& profile, const std::vector<ForceRule>& force,
                   const Registry& registry, std::string_view transport, int np, int nodes) {
  for (const ForceRule& f : force) add(f.collective, f.rule, true, registry, "CCT_FORCE");
  const int tuned = closest_tuned_nodes(profile, transport, nodes);
  if (tuned != nodes)
    warnings_.push_back("profile tuned on " + std::to_string(tuned) + " node" +
                        (tuned == 1 ? "" : "s") + ", not " + std::to_string(nodes) +
                        ": using its " + std::to_string(tuned) + "-node rules");
  std::set<int32_t> stretched_from;  // the measured sizes this communicator's rules come from
  for (int i = 0; i < CCT_COLLECTIVE_COUNT; ++i) {
    const auto c = static_cast<cct_collective>(i);
    const RankBucket* b = bucket_for(profile, c, transport, tuned, np);
    if (b == nullptr) continue;
    if (b->measured_np && *b->measured_np != np) stretched_from.insert(*b->measured_np);
    for (const SizeRule& r : b->sizes) add(c, r, false, registry, "profile");
  }
  for (int32_t measured : stretched_from)
    warnings_.push_back("profile rules measured at " + std::to_string(measured) +
                        " ranks used for " + std::to_string(np) + " ranks on " +
                        std::string(transport) + ": tune with --np " + std::to_string(np) +
                        " for rules measured there");
}

void Selector::add(cct_collective c, const SizeRule& rule, bool forced, const Registry& registry,
                   const std::string& origin) {
  const std::string rule_name = std::string(collective_name(c)) + " [" +
                                detail::format_size(rule.lo) + ", " + detail::format_size(rule.hi) +
                                ")";
  if (!rule.disabled.empty()) {  // the reader's reason names the file and line
    warnings_.push_back(rule.disabled + "; rule " + rule_name +
                        " left out, its sizes take the built-in default");
    return;
  }
  // A profile built in code has not been through the reader's checks, and
  // an empty range would wrap around in `last`.
  std::string problem = rule.lo < rule.hi
                            ? detail::rule_problem(registry, c, rule.algorithm, rule.params)
                            : "empty range";
  if (!problem.empty()) {
    warnings_.push_back(origin + " rule " + rule_name + " left out: " + problem);
    return;
  }
  const AlgorithmEntry* alg = registry.find_algorithm(c, rule.algorithm);
  ranges_[c].push_back(Range{.lo = to_size(rule.lo),
                             .last = to_size(rule.hi) == SIZE_MAX ? SIZE_MAX : to_size(rule.hi) - 1,
                             .selection = {alg, detail::param_values(*alg, rule.params), forced,
                                           selections_++, rule.lo, rule.hi, rule.median_s}});
}

const Selection* Selector::select(cct_collective c, std::size_t bytes) const noexcept {
  if (c < 0 || c >= CCT_COLLECTIVE_COUNT) return nullptr;
  for (const Range& r : ranges_[c])
    if (bytes >= r.lo && bytes <= r.last) return &r.selection;
  return nullptr;
}

// Sizes from 0 up, each range of the first matching rule or of no rule
// (the default) in turn: one and the same selection throughout, or not.
bool Selector::size_matters(cct_collective c) const noexcept {
  if (c < 0 || c >= CCT_COLLECTIVE_COUNT || ranges_[c].empty()) return false;
  const Selection* first = select(c, 0);
  for (const Range& r : ranges_[c]) {
    const Selection* at_lo = select(c, r.lo);
    const Selection* after = r.last == SIZE_MAX ? at_lo : select(c, r.last + 1);
    for (const Selection* s : {at_lo, after})
      if (s != first && (s == nullptr || first == nullptr || s->algorithm != first->algorithm ||
                         s->params != first->params))
        return true;
  }
  return false;
}

}  // namespace cct
