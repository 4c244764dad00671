// ccautotune host library: whether two machines are of one kind, told from
// their summaries (Topology::summary(), "pack:1 numa:1 l3:1(32MiB) l2:2
// core:2 pu:2"). Machines of one kind have the same items in the same
// order (packages, NUMA nodes, the cache levels reported, cores, PUs) and
// differ only in counts or cache sizes: a node of the same processor family
// with more sockets or cores, or an identical machine whose hypervisor
// reports another cache size. Where no profile has this machine's
// fingerprint, the runtime takes the profile of the nearest machine of its
// kind, saying how the two differ (cct/profile.hpp: choose_profile).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cct {

// One item of a summary, "label:count" or "label:count(size)".
struct SummaryItem {
  std::string label;  // pack, numa, l3, l2, core, pu
  long count = 0;
  std::string size;  // empty where the summary gives none
};

// The items of a summary in order; nullopt for one that cannot be read
// (an unknown label, a count below 1, a malformed size, no item).
std::optional<std::vector<SummaryItem>> parse_summary(const std::string& summary);

struct MachineDifference {
  // The differences in words, "cores: 2 there, 16 here; L3 caches: 32MiB
  // there, 16MiB here"; empty when the summaries are equal.
  std::string text;
  // How far apart: the sum over items of |log2(count there / count here)|,
  // and a quarter for each cache size that differs. 0 for equal summaries.
  double distance = 0;
};

// How the machine summarised by `there` differs from the one summarised by
// `here`; nullopt when they are not of one kind (other items, or a summary
// that cannot be read).
std::optional<MachineDifference> compare_machines(const std::string& there,
                                                  const std::string& here);

}  // namespace cct
