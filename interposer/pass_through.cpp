#include "pass_through.hpp"

#include <cstdint>
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

}  // namespace

void count_pass_through(cct_collective c, const char* reason) {
  ++counts()[{c, reason}];
}

void print_pass_through(std::ostream& out) {
  if (counts().empty()) {
    out << "cct: no collective call was passed to the MPI library (rank 0)\n";
    return;
  }
  out << "cct: calls passed to the MPI library (rank 0)\n";
  for (const auto& [key, calls] : counts())
    out << "  " << collective_name(static_cast<cct_collective>(key.first)) << ": " << calls
        << " call(s): " << key.second << "\n";
}

}  // namespace cct::interposer
