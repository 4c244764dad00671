#include "profile_info.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "cct/error.hpp"

namespace cct::tools {
namespace {

std::string np_text(int32_t np) {
  return np == kMaxRanks ? "max" : std::to_string(np);
}

// Per node count, and per rules of some calls (collective, transport,
// element types or roots other than 0) apart, the rank ranges of their
// buckets, each marked "predicted" where the cost model predicted every
// bucket of it.
std::vector<std::string> shapes_of(const Profile& profile) {
  // By shape, then range: whether every bucket of it is predicted.
  std::map<std::string, std::map<std::pair<int32_t, int32_t>, bool>> ranges;
  for (const auto& [collective, transports] : profile.rules)
    for (const auto& [transport, buckets] : transports)
      for (const RankBucket& b : buckets) {
        std::string shape = std::to_string(b.nodes) + (b.nodes == 1 ? " node" : " nodes");
        if (const std::string served = served_calls_text(b); !served.empty())
          shape += ", " + std::string(collective_name(collective)) + " of " + served + " on " +
                   transport;
        const bool predicted = b.predicted.has_value();
        ranges[shape].try_emplace({b.np_lo, b.np_hi}, predicted).first->second &= predicted;
      }
  std::vector<std::string> out;
  for (const auto& [shape, nps] : ranges) {
    std::string line = shape + ":";
    for (const auto& [range, predicted] : nps)
      line += " np [" + np_text(range.first) + ", " + np_text(range.second) + "]" +
              (predicted ? " predicted" : "");
    out.push_back(line);
  }
  return out;
}

}  // namespace

ProfileInfo profile_info(const Registry& registry, const MachineIdentity& machine) {
  ProfileInfo info{.choice = choose_profile(machine), .dirs = profile_dirs()};
  const std::vector<std::string>& fingerprints = machine.fingerprints;
  if (info.choice.path.empty()) return info;
  try {
    info.profile = load_profile(info.choice.path, &registry, RuleProblems::kDisableRule);
  } catch (const Error& e) {
    info.error = e.what();
    return info;
  }
  info.this_machine = std::find(fingerprints.begin(), fingerprints.end(),
                                info.profile->machine.fingerprint) != fingerprints.end();
  info.shapes = shapes_of(*info.profile);
  info.left_out = disabled_rules(*info.profile);
  return info;
}

}  // namespace cct::tools
