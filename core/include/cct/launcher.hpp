// ccautotune host library: starts N rank processes on this machine and
// bootstraps them without mpirun.
//
// The parent forks the ranks and serves their bootstrap (allgather,
// barrier) over one socketpair per rank. If a rank dies, exits non-zero or
// the timeout passes, the others are killed and the result says which rank
// did what; nothing is left behind in /dev/shm.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cct/bootstrap.hpp"

namespace cct {

struct LaunchOptions {
  int ranks = 1;
  double timeout_s = 0;  // 0: no limit
  // Asked about every 100 ms while the ranks run, in the launching process:
  // a non-empty answer (why) stops the job, every rank killed, with that as
  // its error. Unset: nothing watches but the timeout.
  std::function<std::string()> watchdog;
};

struct LaunchResult {
  bool ok = false;
  std::string error;  // empty when ok; else names the rank and the cause
};

// Runs body(bootstrap) in each of opts.ranks child processes; a child's
// exit status is body's return value (0 = success). An exception escaping
// body is printed with the rank and turns into exit status 1.
//
// The child is a fork of the caller: it runs body and then leaves with
// _exit() (after flushing stdio), so it never returns into the caller's
// stack nor runs static destructors. Call it from a single-threaded process.
// The job key is "cct-<parent pid>-<counter>"; after every launch the parent
// removes the /dev/shm entries named after it (what crashed ranks left).
LaunchResult launch_local(const LaunchOptions& opts, const std::function<int(Bootstrap&)>& body);

// Like launch_local, but each rank executes argv (argv[0] is looked up in
// PATH) with the environment below, through which the program joins the
// launch with bootstrap_from_environment().
LaunchResult launch_local_exec(const LaunchOptions& opts, const std::vector<std::string>& argv);

// The bootstrap of a program started by launch_local_exec, read from the
// environment: CCT_BOOTSTRAP_FD (its end of the channel to the launcher),
// CCT_RANK, CCT_SIZE and CCT_JOB_KEY. Returns nullptr when they are unset;
// throws cct::Error when they are malformed.
std::unique_ptr<Bootstrap> bootstrap_from_environment();

}  // namespace cct
