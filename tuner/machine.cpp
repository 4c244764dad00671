#include "tuner/machine.hpp"

#include <sstream>

namespace cct::tuner {
namespace {

// One summary item, "label:count" or "label:count(size)".
struct Item {
  std::string label;
  int count = 0;
  std::string size;
};

Item parse_item(const std::string& text) {
  const std::size_t colon = text.find(':');
  const std::size_t paren = text.find('(', colon);
  Item item{.label = text.substr(0, colon)};
  if (colon == std::string::npos) return item;
  item.count = std::stoi(text.substr(colon + 1, paren - colon - 1));
  if (paren != std::string::npos) item.size = text.substr(paren + 1, text.size() - paren - 2);
  return item;
}

std::string cache_text(const Item& cache) {
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
  std::istringstream items(m.summary);
  for (std::string text; items >> text;) {
    const Item item = parse_item(text);
    if (item.label == "pack") m.packages = item.count;
    if (item.label == "numa") m.numa_nodes = item.count;
    if (item.label != "l3" && item.label != "l2") continue;
    if (!m.caches.empty()) m.caches += ", ";
    m.caches += cache_text(item);
  }
  return m;
}

}  // namespace cct::tuner
