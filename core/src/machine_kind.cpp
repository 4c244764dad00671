#include "cct/machine_kind.hpp"

#include <cmath>
#include <map>
#include <sstream>
#include <vector>

namespace cct {
namespace {

// The words for each item of a summary (Topology::summary()).
const std::map<std::string, std::string> kItemNames = {{"pack", "packages"}, {"numa", "NUMA nodes"},
                                                       {"l3", "L3 caches"},  {"l2", "L2 caches"},
                                                       {"core", "cores"},    {"pu", "PUs"}};

std::optional<SummaryItem> parse_item(const std::string& text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos || !kItemNames.count(text.substr(0, colon))) return std::nullopt;
  SummaryItem item{.label = text.substr(0, colon)};
  std::size_t used = 0;
  try {
    item.count = std::stol(text.substr(colon + 1), &used);
  } catch (const std::logic_error&) {
    return std::nullopt;
  }
  const std::string rest = text.substr(colon + 1 + used);
  if (item.count < 1) return std::nullopt;
  if (rest.empty()) return item;
  if (rest.size() < 3 || rest.front() != '(' || rest.back() != ')') return std::nullopt;
  item.size = rest.substr(1, rest.size() - 2);
  return item;
}

void add_difference(std::string& text, const std::string& label, const std::string& there,
                    const std::string& here) {
  text += (text.empty() ? "" : "; ") + kItemNames.at(label) + ": " + there + " there, " + here +
          " here";
}

}  // namespace

std::optional<std::vector<SummaryItem>> parse_summary(const std::string& summary) {
  std::vector<SummaryItem> items;
  std::istringstream words(summary);
  for (std::string word; words >> word;) {
    std::optional<SummaryItem> item = parse_item(word);
    if (!item) return std::nullopt;
    items.push_back(*item);
  }
  if (items.empty()) return std::nullopt;
  return items;
}

std::optional<MachineDifference> compare_machines(const std::string& there,
                                                  const std::string& here) {
  const auto theirs = parse_summary(there);
  const auto mine = parse_summary(here);
  if (!theirs || !mine || theirs->size() != mine->size()) return std::nullopt;
  MachineDifference difference;
  for (std::size_t i = 0; i < mine->size(); ++i) {
    const SummaryItem& a = (*theirs)[i];
    const SummaryItem& b = (*mine)[i];
    if (a.label != b.label) return std::nullopt;
    if (a.count != b.count) {
      add_difference(difference.text, a.label, std::to_string(a.count), std::to_string(b.count));
      difference.distance +=
          std::abs(std::log2(static_cast<double>(a.count) / static_cast<double>(b.count)));
    }
    if (a.size != b.size) {
      add_difference(difference.text, a.label, a.size.empty() ? "no size" : a.size,
                     b.size.empty() ? "no size" : b.size);
      difference.distance += 0.25;
    }
  }
  return difference;
}

}  // namespace cct
