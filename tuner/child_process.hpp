// ccautotune tuner: a command run to its end, its output kept, within a
// time limit (the outside check's benchmark runs under mpirun).
//
// Written on fork/exec rather than Boost.Process: a child that hangs must
// be killed with everything it started (mpirun and its ranks: a process
// group of their own), and its output read while it runs, which
// Boost.Process 1.74-1.81 offers only through asio.
#pragma once

#include <string>
#include <vector>

namespace cct::tuner {

struct ChildResult {
  int status = -1;  // the exit status; 128 + the signal that ended it; -1: not started
  bool timed_out = false;
  std::string output;  // stdout and stderr together
};

// Runs args[0] (looked up in PATH) with args and exactly the environment
// `env` ("NAME=value" each), in a process group of its own, killed with
// its group after timeout_s. Throws cct::Error where it cannot start.
ChildResult run_child(const std::vector<std::string>& args, const std::vector<std::string>& env,
                      double timeout_s);

}  // namespace cct::tuner
