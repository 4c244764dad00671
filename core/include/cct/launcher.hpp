// ccautotune host library: starts N rank processes on this machine and
// bootstraps them without mpirun.
//
// The parent forks the ranks and serves their bootstrap (allgather,
// barrier) over one socketpair per rank. If a rank dies, exits non-zero or
// the timeout passes, the others are killed and the result says which rank
// did what; nothing is left behind in /dev/shm.
#pragma once

#include <functional>
#include <string>

#include "cct/bootstrap.hpp"

namespace cct {

struct LaunchOptions {
  int ranks = 1;
  double timeout_s = 0;  // 0: no limit
};

struct LaunchResult {
  bool ok = false;
  std::string error;  // empty when ok; else names the rank and the cause
};

// Runs body(bootstrap) in each of opts.ranks child processes; a child's
// exit status is body's return value (0 = success). An exception escaping
// body is printed with the rank and turns into exit status 1.
LaunchResult launch_local(const LaunchOptions& opts, const std::function<int(Bootstrap&)>& body);

}  // namespace cct
