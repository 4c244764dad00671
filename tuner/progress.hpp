// ccautotune tuner: progress of a run.
//
// On a terminal one status line is rewritten in place (carriage return,
// erase to the end of line); into a file or pipe a plain line comes at each
// tenth of the points, so logs stay short and readable. Both say what is being measured, done/total
// and the ETA, the average time per finished point so far times the points
// left.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <ostream>
#include <string>

namespace cct::tuner {

// "2h03m", "4m07s", "9s".
std::string format_duration(double seconds);

class Progress {
 public:
  // total: points this run plans to measure (see add). terminal: rewrite one line (pass
  // isatty(fileno(stream)) for a real stream).
  Progress(std::ostream& out, std::size_t total, bool terminal);

  // About to measure `what` (e.g. "bcast shm np=4 64k knomial radix=4").
  void start(const std::string& what);
  // The point announced by start() is finished.
  void finish_one();
  // n more points are planned (the search adds crossovers and checks).
  void add(std::size_t n) { total_ += n; }
  // Ends the status line on a terminal; call once at the end.
  void close();

  std::size_t done() const { return done_; }

 private:
  std::string eta() const;

  std::ostream& out_;
  std::size_t total_;
  bool terminal_;
  std::size_t done_ = 0;
  std::optional<std::size_t> logged_tenth_;  // the last tenth a log line was written at
  std::chrono::steady_clock::time_point begin_ = std::chrono::steady_clock::now();
};

}  // namespace cct::tuner
