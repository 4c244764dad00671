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

void count_kept_on_library(cct_collective c, bool as_before) {
  Kept& mine = PerThread<Kept>::mine();
  ++mine.calls[c];
  mine.as_before[c] += as_before;
}

void count_moved_nothing(cct_collective c) {
  ++PerThread<Kept>::mine().nothing[c];
}

void count_pass_through(cct_collective c, const char* reason) {
  Reasons& mine = PerThread<Reasons>::mine();
  const ReasonView key{c, reason};
  auto it = mine.find(key);
  if (it == mine.end()) it = mine.emplace(Reason{c, reason}, 0).first;
  ++it->second;
}

namespace {

Kept summed_kept() {
  Kept sum;
  PerThread<Kept>::for_each([&](const Kept& k) {
    for (int c = 0; c < CCT_COLLECTIVE_COUNT; ++c) {
      sum.calls[c] += k.calls[c];
      sum.as_before[c] += k.as_before[c];
      sum.untouched[c] += k.untouched[c];
      sum.nothing[c] += k.nothing[c];
    }
  });
  return sum;
}

bool any(const uint64_t (&counts)[CCT_COLLECTIVE_COUNT]) {
  return std::any_of(std::begin(counts), std::end(counts), [](uint64_t n) { return n > 0; });
}

// "  <collective>: <n> call(s)<what>".
void print_line(std::ostream& out, int c, uint64_t calls, const std::string& what) {
  out << "  " << collective_name(static_cast<cct_collective>(c)) << ": " << calls << " call(s)"
      << what << "\n";
}

// print_line for each collective counted.
void print_counts(std::ostream& out, const uint64_t (&counts)[CCT_COLLECTIVE_COUNT],
                  const char* what) {
  for (int c = 0; c < CCT_COLLECTIVE_COUNT; ++c)
    if (counts[c] > 0) print_line(out, c, counts[c], what);
}

}  // namespace

void print_pass_through(std::ostream& out) {
  const Kept kept = summed_kept();
  std::map<std::pair<int, std::string>, uint64_t> counts;
  PerThread<Reasons>::for_each([&](const Reasons& r) {
    for (const auto& [reason, calls] : r) counts[{reason.collective, reason.text}] += calls;
  });
  if (counts.empty() && !any(kept.calls) && !any(kept.untouched)) {
    out << "cct: no collective call was passed to the MPI library (rank 0)\n";
  } else {
    out << "cct: calls passed to the MPI library (rank 0)\n";
    print_counts(
        out, kept.untouched,
        ": the profile keeps the MPI library's own call for every size, or has no rule for it: "
        "handed over untouched");
    for (int c = 0; c < CCT_COLLECTIVE_COUNT; ++c)
      if (kept.calls[c] > 0)
        print_line(out, c, kept.calls[c],
                   ": the profile keeps the MPI library's own call for their size (" +
                       std::to_string(kept.as_before[c]) +
                       " as the same call before, not converted again)");
    for (const auto& [key, calls] : counts) print_line(out, key.first, calls, ": " + key.second);
  }
  if (any(kept.nothing)) {
    out << "cct: calls that move no byte, returned at once as the library does (rank 0)\n";
    print_counts(out, kept.nothing, "");
  }
}

}  // namespace cct::interposer
