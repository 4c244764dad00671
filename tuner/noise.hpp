// ccautotune tuner: whether the machine is quiet enough for its figures to
// hold.
//
// A profile tuned while another job shared the cores records that job's
// interference as if it were the algorithms' cost, and nothing in its
// figures says so. So before and after measuring, a probe keeps every core
// busy for a fixed time with a loop of arithmetic (one thread per core)
// while it samples the kernel's count of runnable tasks (procs_running in
// /proc/stat): tasks beyond the probe's own threads and the sampling
// thread are other work that wants the same cores. That count is what
// decides "busy"; the share of the probe's time its threads did not get is
// reported beside it, but on a virtual machine it moves by tens of percent
// with nothing else running, so it decides nothing.
#pragma once

#include <string>

namespace cct::tuner {

struct Noise {
  int other_tasks = 0;  // runnable tasks besides the probe (median of the samples)
  double lost = 0;      // the worst probe thread's share of wall time not spent computing
  bool busy() const { return other_tasks > 0; }
  // "0 other runnable tasks, 12% of the probe's time lost"
  std::string describe() const;
};

// Runs the probe on `cores` threads for about kProbeSeconds. Nothing else of
// this job may run meanwhile (ranks of an MPI job sleep, see
// kProbeSeconds).
Noise probe_noise(int cores);

// How long probe_noise keeps the cores busy.
inline constexpr double kProbeSeconds = 0.05;

// Prints "ccautotune: noise <when>: <noise>" (and a warning when busy);
// returns noise.
Noise announce(const Noise& noise, const std::string& when);

// The profile's record of both probes, and the warning for a busy machine
// ("" when both were quiet).
std::string noise_record(const Noise& before, const Noise& after);
std::string noise_warning(const Noise& before, const Noise& after);

}  // namespace cct::tuner
