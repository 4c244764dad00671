// ccautotune tuner: what a job was measuring when it died.
//
// A candidate that crashes a rank (or fails in it) must not stop the
// tuning of everything else. The launching process shares one mapping with
// the ranks it forks: rank 0 writes the keys of the points about to be
// measured (one, or the finalists timed together), and every rank notes
// the candidate of each call it starts (RunningCandidate). When the job
// dies, the launcher reads the culprit from it: the candidate of the rank
// that got least far. And a job that stops making progress altogether (a
// rank hangs, or waits for one that does) is told by the calls no longer
// counting up: stalled() names the ranks that got least far.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "tuner/measure.hpp"

namespace cct::tuner {

class JobProgress {
 public:
  // In memory shared with the forked ranks; or, given a file, in that file
  // (rank 0 of a job under mpirun, whose ranks are not this process's
  // children): a run that died leaves it for the next one to read, and it
  // keeps what an earlier run left there. Throws cct::Error when it cannot
  // map.
  explicit JobProgress(int ranks, const std::string& file = "");
  JobProgress(const JobProgress&) = delete;
  JobProgress& operator=(const JobProgress&) = delete;
  ~JobProgress();

  // Rank 0, before measuring: the keys (ResultRow::key) of the points about
  // to run; at most kMaxPoints (finalists timed together).
  void start(std::span<const std::string> keys);
  // Rank `rank`'s slot for Measurer::note_running_in.
  RunningCandidate* running(int rank);
  // The launcher, after a failed job: the key of the point that was
  // running, or "" when none was (the job died between points).
  std::string culprit() const;
  // The launcher, before (re)launching: nothing running.
  void clear();
  // The launcher, while the job runs (LaunchOptions::watchdog): why it is
  // stuck once no rank has started a call for `limit`, else "".
  std::string stalled(std::chrono::duration<double> limit);

  static constexpr std::size_t kMaxPoints = 16;

 private:
  struct Page;
  Page* page_ = nullptr;
  RunningCandidate* slots_ = nullptr;
  std::size_t bytes_ = 0;
  int ranks_ = 0;
  // stalled()'s memory, in the launcher only.
  uint64_t last_calls_ = 0;
  std::chrono::steady_clock::time_point last_change_;
};

}  // namespace cct::tuner
