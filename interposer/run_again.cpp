#include "run_again.hpp"

#include <ostream>

#include "cct/error.hpp"

namespace cct::interposer {

void print_run_again(std::ostream& out) {
  RunAgain sum;
  PerThread<RunAgain>::for_each([&](const RunAgain& r) {
    for (int c = 0; c < CCT_COLLECTIVE_COUNT; ++c) sum.calls[c] += r.calls[c];
  });
  bool header = false;
  for (int c = 0; c < CCT_COLLECTIVE_COUNT; ++c) {
    if (sum.calls[c] == 0) continue;
    if (!header)
      out << "cct: calls run again as the same call before, not decided again (rank 0)\n";
    header = true;
    out << "  " << collective_name(static_cast<cct_collective>(c)) << ": " << sum.calls[c]
        << " call(s)\n";
  }
}

}  // namespace cct::interposer
