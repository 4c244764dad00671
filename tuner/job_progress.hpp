// ccautotune tuner: what a job was measuring when it died.
//
// A candidate that crashes a rank (or fails in it) must not stop the
// tuning of everything else. The launching process shares one mapping with
// the ranks it forks: rank 0 writes the keys of the points about to be
// measured (one, or the finalists timed together), and every rank notes
// the candidate of each call it starts (RunningCandidate). When the job
// dies, the launcher reads the culprit from it: the candidate of the rank
// that got least far.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "tuner/measure.hpp"

namespace cct::tuner {

class JobProgress {
 public:
  explicit JobProgress(int ranks);  // throws cct::Error when it cannot map
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

  static constexpr std::size_t kMaxPoints = 16;

 private:
  struct Page;
  Page* page_ = nullptr;
  RunningCandidate* slots_ = nullptr;
  std::size_t bytes_ = 0;
  int ranks_ = 0;
};

}  // namespace cct::tuner
