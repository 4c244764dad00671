// ccbench --check: does the profile's pick hold the way an outside
// benchmark sees it, beside the tuner's runner-up?
//
// For every size the tuner measured for this communicator's shape
// (transport, nodes, ranks) in a results CSV, the runtime's choice (the
// profile in effect) and the best other (algorithm, parameters) of the
// tuner's full measurements at that size are timed as an OSU-style loop
// times a program's calls (bench_timing.hpp, measure_as_programs), both
// reached as the MPI interposer reaches them (interposed_call.hpp; the
// library's own call where it keeps one). A row is flagged where the
// runner-up is more than 5% faster: a pick that does not hold outside the
// tuner.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "cct/session.hpp"

namespace cct::bench {

// Collective over comm (the session's ranks). send and recv are large
// enough for the results' largest call. Returns the sizes checked and the
// sizes flagged; rank 0 prints the rows.
struct CheckCount {
  int checked = 0, flagged = 0;
};
CheckCount check_profile(Session& session, MPI_Comm comm, const std::string& results,
                         std::vector<unsigned char>& send, std::vector<unsigned char>& recv);

}  // namespace cct::bench
