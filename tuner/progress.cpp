#include "tuner/progress.hpp"

#include <algorithm>
#include <cstdio>

namespace cct::tuner {

std::string format_duration(double seconds) {
  const long s = seconds > 0 ? static_cast<long>(seconds + 0.5) : 0;
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, s / 60 % 60);
  else if (s >= 60)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%lds", s);
  return buf;
}

Progress::Progress(std::ostream& out, std::size_t total, bool terminal)
    : out_(out), total_(total), terminal_(terminal) {}

void Progress::start(const std::string& what) {
  const std::string line =
      "[" + std::to_string(done_ + 1) + "/" + std::to_string(total_) + "] " + what + eta();
  // "\033[K" erases what a longer previous line left on the right.
  if (terminal_) {
    out_ << '\r' << line << "\033[K" << std::flush;
    return;
  }
  // A log (not a terminal) gets a line per tenth of the points, not per
  // point: a full run has thousands.
  const std::size_t tenth = (done_ + 1) * 10 / std::max<std::size_t>(total_, 1);
  if (logged_tenth_ && tenth <= *logged_tenth_) return;
  logged_tenth_ = tenth;
  out_ << line << '\n' << std::flush;
}

void Progress::finish_one() {
  ++done_;
}

void Progress::close() {
  if (terminal_) out_ << '\n' << std::flush;
}

// Empty until one point finished: there is no average to extrapolate yet.
std::string Progress::eta() const {
  if (done_ == 0) return "";
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin_).count();
  const double left = elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_);
  return "  ETA " + format_duration(left);
}

}  // namespace cct::tuner
