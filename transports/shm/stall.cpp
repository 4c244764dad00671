// Naming the ranks a timed-out wait waited for (see stall.hpp).
#include "stall.hpp"

#include <sstream>

#include "process_state.hpp"

namespace cct::shm {
namespace {

// Enough names to act on; the rest would not fit the 255 characters of a
// cct_error.
constexpr std::size_t kNamed = 4;

// A process's state in words.
std::string state_of(pid_t pid) {
  switch (const char state = process_state(pid)) {
    case 0:
    case 'Z':
    case 'X': return "exited";
    case 'T':
    case 't': return "stopped";
    case 'D': return "in uninterruptible sleep";
    case 'R': return "running";
    case 'S': return "sleeping";
    default: return std::string("state ") + state;
  }
}

// A peer that sleeps in a wait of this instance is stuck here too; else
// what its process does.
std::string doing(const SegmentView& segment, int rank, pid_t pid) {
  const std::string state = state_of(pid);
  if (state == "stopped" || state == "exited") return state;
  switch (load_acquire(&segment.control(rank)->waiting)) {
    case kWaiting: return "waiting here too";
    case kGaveUp: return "timed out here too";
    default: return state + ", not waiting here";
  }
}

}  // namespace

std::vector<int> ranks_not_waiting(const SegmentView& segment, int me) {
  std::vector<int> ranks;
  for (int r = 0; r < segment.layout().size; ++r)
    if (r != me && load_acquire(&segment.control(r)->waiting) == kNotWaiting) ranks.push_back(r);
  return ranks;
}

std::string stall_report(double timeout_s, const std::vector<int>& awaited,
                         const SegmentView& segment, const std::vector<pid_t>& pids) {
  std::ostringstream text;
  text << "no progress for " << timeout_s << " s; ";
  if (awaited.empty()) return text.str() + "every other rank is waiting too (calls out of step?)";
  text << "waiting for ";
  for (std::size_t i = 0; i < awaited.size() && i < kNamed; ++i) {
    const int r = awaited[i];
    text << (i > 0 ? ", " : "") << "rank " << r << " (pid " << pids[r] << ", "
         << doing(segment, r, pids[r]) << ")";
  }
  if (awaited.size() > kNamed) text << " and " << awaited.size() - kNamed << " more";
  return text.str();
}

}  // namespace cct::shm
