// ccautotune beyond one node: the run under mpirun, tuned per shape (nodes x
// ranks per node), and --launcher mpirun, which starts it.
//
// Under mpirun every rank is a ccautotune process. The job's nodes are the
// ranks that share memory (with CCT_VIRTUAL_NODES=k, k blocks of
// consecutive ranks, so one machine can stand in for k); a shape takes the
// first `nodes` nodes and the first `ranks_per_node` ranks of each (in rank
// order), so MPI_COMM_WORLD's rank 0 is rank 0 of every shape and alone
// writes the results and the profile. A shape's communicator spans its
// nodes with the mpi transport and opens shm inside each node, as the
// runtime does for an application's communicator of that shape.
#pragma once

#include "tuner/options.hpp"

namespace cct::tuner {

// Whether mpirun (Open MPI's, or any PMIx or PMI launcher) started this
// process.
bool started_by_mpirun();

// --launcher mpirun: runs
//   mpirun [--allow-run-as-root] [-x CCT_...] [--hostfile H] [ARGS..]
//          <this program> <argv without the launcher's flags>
// and, while it fails, runs it again with --resume past the candidate that
// was running (at most kMostRelaunches times; rank 0 records it as failed
// from the note it keeps beside the results). Returns the exit status; 2
// when mpirun cannot be run (the reason on stderr).
int relaunch_under_mpirun(const Options& opts, int argc, char** argv);

// The run under mpirun; every rank calls it. MPI_Init and MPI_Finalize
// happen inside. Returns the exit status; a rank that fails aborts the job
// (MPI_Abort) after saying why, and the rows measured so far stay in the
// results file for --resume, which records the candidate that was running
// as failed and goes on without it. A wait that goes --hang-timeout
// without progress fails (naming the ranks it waited for), so a hung rank
// ends the job too.
int run_on_cluster(Options opts, int* argc, char*** argv);

}  // namespace cct::tuner
