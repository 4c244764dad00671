#include "profile_merge.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "cct/error.hpp"

namespace cct::tools {

Profile merge_profiles(const Profile& base, const Profile& added, const std::string& base_name,
                       const std::string& added_name) {
  if (base.machine.fingerprint != added.machine.fingerprint)
    throw Error(base_name + " and " + added_name + " are of different machines (fingerprints " +
                    base.machine.fingerprint + " and " + added.machine.fingerprint + ")",
                CCT_ERR_INVALID_ARG);
  Profile out = base;
  for (const auto& [c, transports] : added.rules)
    for (const auto& [transport, buckets] : transports) {
      std::set<int32_t> nodes;
      for (const RankBucket& b : buckets) nodes.insert(b.nodes);
      std::vector<RankBucket>& into = out.rules[c][transport];
      std::erase_if(into, [&](const RankBucket& b) { return nodes.count(b.nodes) > 0; });
      into.insert(into.end(), buckets.begin(), buckets.end());
      std::stable_sort(into.begin(), into.end(), [](const RankBucket& a, const RankBucket& b) {
        return std::tie(a.nodes, a.nonzero_roots, a.datatypes, a.np_lo) <
               std::tie(b.nodes, b.nonzero_roots, b.datatypes, b.np_lo);
      });
    }
  out.machine.nodes = std::max(base.machine.nodes, added.machine.nodes);
  out.machine.ranks_per_node = std::max(base.machine.ranks_per_node, added.machine.ranks_per_node);
  out.date = added.date;
  out.tuning["merged"] =
      base_name + " (" + base.date + ") with " + added_name + " (" + added.date + ")";
  return out;
}

}  // namespace cct::tools
