// The compiled lookup: for one transport and one communicator size, a short
// list of ranges per collective, resolved against the registry up front so
// that select() only compares integers.
#include "cct/error.hpp"
#include "cct/profile.hpp"
#include "profile_check.hpp"

namespace cct {
namespace {

// The profile's bucket for (c, transport, np), or nullptr.
const RankBucket* bucket_for(const Profile& profile, cct_collective c, std::string_view transport,
                             int np) {
  auto by_collective = profile.rules.find(c);
  if (by_collective == profile.rules.end()) return nullptr;
  auto by_transport = by_collective->second.find(std::string(transport));
  if (by_transport == by_collective->second.end()) return nullptr;
  for (const RankBucket& b : by_transport->second)
    if (np >= b.np_lo && np <= b.np_hi) return &b;
  return nullptr;
}

std::size_t to_size(int64_t bytes) {
  return bytes == kMaxBytes ? SIZE_MAX : static_cast<std::size_t>(bytes);
}

}  // namespace

Selector::Selector(const Profile& profile, const std::vector<ForceRule>& force,
                   const Registry& registry, std::string_view transport, int np) {
  for (const ForceRule& f : force) add(f.collective, f.rule, true, registry, "CCT_FORCE");
  for (int i = 0; i < CCT_COLLECTIVE_COUNT; ++i) {
    const auto c = static_cast<cct_collective>(i);
    if (const RankBucket* b = bucket_for(profile, c, transport, np))
      for (const SizeRule& r : b->sizes) add(c, r, false, registry, "profile");
  }
}

void Selector::add(cct_collective c, const SizeRule& rule, bool forced, const Registry& registry,
                   const std::string& origin) {
  // A profile built in code has not been through the reader's checks, and
  // an empty range would wrap around in `last`.
  std::string problem = rule.lo < rule.hi
                            ? detail::rule_problem(registry, c, rule.algorithm, rule.params)
                            : "empty range";
  if (!problem.empty()) {
    warnings_.push_back(origin + " rule " + collective_name(c) + " [" +
                        detail::format_size(rule.lo) + ", " + detail::format_size(rule.hi) +
                        ") left out: " + problem);
    return;
  }
  const AlgorithmEntry* alg = registry.find_algorithm(c, rule.algorithm);
  ranges_[c].push_back(
      Range{.lo = to_size(rule.lo),
            .last = to_size(rule.hi) == SIZE_MAX ? SIZE_MAX : to_size(rule.hi) - 1,
            .selection = {alg, detail::param_values(*alg, rule.params), forced, selections_++}});
}

const Selection* Selector::select(cct_collective c, std::size_t bytes) const noexcept {
  if (c < 0 || c >= CCT_COLLECTIVE_COUNT) return nullptr;
  for (const Range& r : ranges_[c])
    if (bytes >= r.lo && bytes <= r.last) return &r.selection;
  return nullptr;
}

}  // namespace cct
