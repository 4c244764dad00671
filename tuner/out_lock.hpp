// ccautotune tuner: one tuner per output directory.
//
// Two runs appending to one results file would each measure every point
// (neither sees the other's rows in time) and disturb each other's
// timings. So a run holds an exclusive flock(2) on its --out directory
// from opening the results file to its exit; a second run is refused,
// naming the process that holds the lock (found in /proc/locks). The lock
// goes with the process, however it ends: nothing is left to clean up.
#pragma once

#include <string>

namespace cct::tuner {

class OutLock {
 public:
  OutLock() = default;  // holds nothing
  // Locks dir, or throws UsageError naming the holder. Where the file
  // system has no locks, says so on stderr and holds nothing.
  explicit OutLock(const std::string& dir);
  OutLock(OutLock&& other) noexcept;
  OutLock& operator=(OutLock&& other) noexcept;
  OutLock(const OutLock&) = delete;
  OutLock& operator=(const OutLock&) = delete;
  ~OutLock();

 private:
  int fd_ = -1;
};

}  // namespace cct::tuner
