// The MPI interposer: the calls left to the MPI library, and why.
//
// Counted per collective and reason on every rank; with CCT_STATS=1, rank
// 0 of MPI_COMM_WORLD prints its counts at MPI_Finalize, after the
// runtimes' own tables of the calls they ran, and the calls that moved
// nothing and returned at once.
#pragma once

#include <cstdint>
#include <iosfwd>

#include "cct/abi/common.h"
#include "per_thread.hpp"

namespace cct::interposer {

// reason: a string that lives as long as the program (a literal, or a
// communicator's refusal while it lives; the text is copied).
void count_pass_through(cct_collective c, const char* reason);

// A call the profile keeps on the library (calls.hpp: kKeptOnLibrary, or
// kKeptAsBefore: `as_before`): counted apart, at the cost of an increment,
// since these may be most of a program's calls.
void count_kept_on_library(cct_collective c, bool as_before);
// Per collective, the calls kept on the library for their size (and of
// those, the ones kept as the same call before), those kept for every call
// (untouched), and those that moved nothing; counted per thread.
struct Kept {
  uint64_t calls[CCT_COLLECTIVE_COUNT] = {};
  uint64_t as_before[CCT_COLLECTIVE_COUNT] = {};
  uint64_t untouched[CCT_COLLECTIVE_COUNT] = {};
  uint64_t nothing[CCT_COLLECTIVE_COUNT] = {};
};

// The same for a collective kept for every call
// (Runtime::library_for_every_call), handed over before its arguments
// were converted: inline, since these calls must cost next to nothing.
inline void count_kept_untouched(cct_collective c) {
  ++PerThread<Kept>::mine().untouched[c];
}
// A call kept on the library for its size as the same call before it
// (kept_calls.hpp), handed over before its arguments were converted:
// inline, as count_kept_untouched.
inline void count_kept_as_before(cct_collective c) {
  Kept& mine = PerThread<Kept>::mine();
  ++mine.calls[c];
  ++mine.as_before[c];
}
// A call that moved nothing and returned at once (calls.hpp: kMovesNothing).
void count_moved_nothing(cct_collective c);

void print_pass_through(std::ostream& out);

}  // namespace cct::interposer
