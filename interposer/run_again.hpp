// The MPI interposer: the calls the runtime ran again as the same call
// before them (kept_calls.hpp, last_run_calls), without deciding again
// whether the profile keeps them on the library. Counted per thread;
// with CCT_STATS=1 rank 0 of MPI_COMM_WORLD prints the counts at
// MPI_Finalize, so that a test can count what no timing shows.
#pragma once

#include <cstdint>
#include <iosfwd>

#include "cct/abi/common.h"
#include "per_thread.hpp"

namespace cct::interposer {

struct RunAgain {
  uint64_t calls[CCT_COLLECTIVE_COUNT] = {};
};

inline void count_run_again(cct_collective c) {
  ++PerThread<RunAgain>::mine().calls[c];
}

// "cct: calls run again as the same call before, not decided again (rank
// 0)" and a line per collective counted; nothing where none was.
void print_run_again(std::ostream& out);

}  // namespace cct::interposer
