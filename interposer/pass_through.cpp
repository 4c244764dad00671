#include "pass_through.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>
#include <ostream>
#include <string>
#include <utility>

#include "cct/error.hpp"
#include "per_thread.hpp"

namespace cct::interposer {
namespace {

// The calls passed with a reason: rarer, and slow beside the library's
// call anyway, so one locked table.
std::mutex counts_mutex;
std::map<std::pair<int, std::string>, uint64_t> by_collective_and_reason;

struct Kept {
  uint64_t calls[CCT_COLLECTIVE_COUNT] = {};
};

}  // namespace

void count_kept_on_library(cct_collective c) {
  ++PerThread<Kept>::mine().calls[c];
}

void count_pass_through(cct_collective c, const char* reason) {
  const std::lock_guard<std::mutex> lock(counts_mutex);
  ++by_collective_and_reason[{c, reason}];
}

void print_pass_through(std::ostream& out) {
  uint64_t kept[CCT_COLLECTIVE_COUNT] = {};
  PerThread<Kept>::for_each([&](const Kept& k) {
    for (int c = 0; c < CCT_COLLECTIVE_COUNT; ++c) kept[c] += k.calls[c];
  });
  const std::lock_guard<std::mutex> lock(counts_mutex);
  const auto& counts = by_collective_and_reason;
  const bool any_kept = std::any_of(std::begin(kept), std::end(kept), [](uint64_t n) { return n; });
  if (counts.empty() && !any_kept) {
    out << "cct: no collective call was passed to the MPI library (rank 0)\n";
    return;
  }
  out << "cct: calls passed to the MPI library (rank 0)\n";
  for (int c = 0; c < CCT_COLLECTIVE_COUNT; ++c)
    if (kept[c] > 0)
      out << "  " << collective_name(static_cast<cct_collective>(c)) << ": " << kept[c]
          << " call(s): the profile keeps the MPI library's own call for their size\n";
  for (const auto& [key, calls] : counts)
    out << "  " << collective_name(static_cast<cct_collective>(key.first)) << ": " << calls
        << " call(s): " << key.second << "\n";
}

}  // namespace cct::interposer
