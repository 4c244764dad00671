#include "tuner/machine.hpp"

#include <optional>
#include <sstream>
#include <vector>

#include "cct/machine_kind.hpp"

namespace cct::tuner {
namespace {

std::string cache_text(const SummaryItem& cache) {
  std::ostringstream text;
  text << 'L' << cache.label.substr(1) << (cache.size.empty() ? "" : " ") << cache.size << " x"
       << cache.count;
  return text.str();
}

}  // namespace

MachineInfo describe_machine(const Topology& topo, int ranks_per_node) {
  MachineInfo m{.fingerprint = topo.fingerprint(),
                .summary = topo.summary(),
                .ranks_per_node = ranks_per_node,
                .cores = topo.cores(),
                .pus = topo.pus()};
  for (const SummaryItem& item : parse_summary(m.summary).value_or(std::vector<SummaryItem>{})) {
    if (item.label == "pack") m.packages = item.count;
    if (item.label == "numa") m.numa_nodes = item.count;
    if (item.label != "l3" && item.label != "l2") continue;
    if (!m.caches.empty()) m.caches += ", ";
    m.caches += cache_text(item);
  }
  return m;
}

std::string synthetic_of(const std::string& summary) {
  const std::optional<std::vector<SummaryItem>> items = parse_summary(summary);
  if (!items) return "";
  std::string out;
  long above = 1;
  for (const SummaryItem& item : *items) {
    if (item.count % above != 0) return "";
    out += (out.empty() ? "" : " ") + item.label + ":" + std::to_string(item.count / above);
    above = item.count;
  }
  return out;
}

}  // namespace cct::tuner
