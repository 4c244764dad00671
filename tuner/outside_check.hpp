// ccautotune tuner: the written profile checked as a user measures it.
//
// After --launcher mpirun has tuned this machine, the plain MPI benchmark
// osu_style_bench (installed beside ccautotune; it links only MPI and
// times each collective the way the OSU micro-benchmarks do, 1 B up to
// 1 MiB or --max-bytes) runs under mpirun as the tune's job ran (its
// --mpirun-args, one rank per core by default), `runs` times on the MPI
// library alone and `runs` times with the interposer preloaded reading
// the profile, the two alternated (a slow spell of the machine lands on
// both; whole processes run in faster or slower modes here, so fresh
// processes are what a user sees), and again, up to `runs` more a side,
// until each side has runs at both latency levels (both_levels_seen).
// What the runs say of each point (outside_result.hpp) becomes an
// OutsideFigure (outside_figures.hpp), and
// where the pick is not the library's own call and not faster than the
// library alone by OutsideFigure::kOutsideWin, it is given back to the
// library when the profile is made again.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cct/registry.hpp"
#include "tuner/outside_result.hpp"

namespace cct::tuner {

struct OutsideRun {
  int runs = 5;  // of each side
  int64_t max_bytes = 1 << 20;
  std::string mpirun_args;  // words passed on to mpirun, as the tune's job had them
  double timeout_s = 3600;  // per benchmark run
};

// Runs the check of the profile at profile_path. Throws cct::Error naming
// what failed: the benchmark or the interposer not found, a run that
// failed or timed out (with the end of its output), output it cannot read.
OutsideResult check_outside(const std::string& profile_path, const Registry& registry,
                            const OutsideRun& how);

}  // namespace cct::tuner
