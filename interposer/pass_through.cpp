#include "pass_through.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "cct/error.hpp"
#include "per_thread.hpp"

namespace cct::interposer {
namespace {

struct Kept {
  uint64_t calls[CCT_COLLECTIVE_COUNT] = {};
};

// The calls passed with a reason, per thread, by (collective, reason): a
// call looks its reason up as a string_view, so that counting a reason
// already seen copies no string.
struct Reason {
  int collective;
  std::string text;
};
struct ReasonView {
  int collective;
  std::string_view text;
};
struct ByReason {
  using is_transparent = void;
  template <class A, class B>
  bool operator()(const A& a, const B& b) const {
    return std::tie(a.collective, a.text) < std::tie(b.collective, b.text);
  }
};
using Reasons = std::map<Reason, uint64_t, ByReason>;

}  // namespace

void count_kept_on_library(cct_collective c) {
  ++PerThread<Kept>::mine().calls[c];
}

void count_pass_through(cct_collective c, const char* reason) {
  Reasons& mine = PerThread<Reasons>::mine();
  const ReasonView key{c, reason};
  auto it = mine.find(key);
  if (it == mine.end()) it = mine.emplace(Reason{c, reason}, 0).first;
  ++it->second;
}

void print_pass_through(std::ostream& out) {
  uint64_t kept[CCT_COLLECTIVE_COUNT] = {};
  PerThread<Kept>::for_each([&](const Kept& k) {
    for (int c = 0; c < CCT_COLLECTIVE_COUNT; ++c) kept[c] += k.calls[c];
  });
  std::map<std::pair<int, std::string>, uint64_t> counts;
  PerThread<Reasons>::for_each([&](const Reasons& r) {
    for (const auto& [reason, calls] : r) counts[{reason.collective, reason.text}] += calls;
  });
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
