#include "pass_through.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <ostream>
#include <string>
#include <utility>

#include "cct/error.hpp"

namespace cct::interposer {
namespace {

std::map<std::pair<int, std::string>, uint64_t>& counts() {
  static std::map<std::pair<int, std::string>, uint64_t> by_collective_and_reason;
  return by_collective_and_reason;
}

uint64_t kept[CCT_COLLECTIVE_COUNT] = {};

}  // namespace

void count_kept_on_library(cct_collective c) {
  ++kept[c];
}

void count_pass_through(cct_collective c, const char* reason) {
  ++counts()[{c, reason}];
}

void print_pass_through(std::ostream& out) {
  const bool any_kept = std::any_of(std::begin(kept), std::end(kept), [](uint64_t n) { return n; });
  if (counts().empty() && !any_kept) {
    out << "cct: no collective call was passed to the MPI library (rank 0)\n";
    return;
  }
  out << "cct: calls passed to the MPI library (rank 0)\n";
  for (int c = 0; c < CCT_COLLECTIVE_COUNT; ++c)
    if (kept[c] > 0)
      out << "  " << collective_name(static_cast<cct_collective>(c)) << ": " << kept[c]
          << " call(s): the profile keeps the MPI library's own call for their size\n";
  for (const auto& [key, calls] : counts())
    out << "  " << collective_name(static_cast<cct_collective>(key.first)) << ": " << calls
        << " call(s): " << key.second << "\n";
}

}  // namespace cct::interposer
