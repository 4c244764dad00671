#include "tuner/job_progress.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "cct/error.hpp"

namespace cct::tuner {

// The mapping: the page, then one RunningCandidate per rank.
struct JobProgress::Page {
  std::size_t points = 0;
  char keys[kMaxPoints][512] = {};
};
namespace {

// Zero-filled shared memory of `bytes`: anonymous, or the file's pages.
// A file of that size keeps what an earlier run wrote into it.
void* map_shared(std::size_t bytes, const std::string& file) {
  if (file.empty()) {
    void* addr = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (addr == MAP_FAILED)
      throw Error(std::string("cannot map the job's progress: ") + std::strerror(errno));
    return addr;
  }
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  struct stat st {};
  const bool usable = fd >= 0 && fstat(fd, &st) == 0 &&
                      (static_cast<std::size_t>(st.st_size) == bytes ||
                       (ftruncate(fd, 0) == 0 && ftruncate(fd, static_cast<off_t>(bytes)) == 0));
  void* addr =
      usable ? mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
  const int error = errno;
  if (fd >= 0) ::close(fd);
  if (addr == MAP_FAILED)
    throw Error("cannot keep the job's progress in " + file + ": " + std::strerror(error));
  return addr;
}

}  // namespace

// Zero-filled memory is an empty page and idle slots.
JobProgress::JobProgress(int ranks, const std::string& file)
    : bytes_(sizeof(Page) + sizeof(RunningCandidate) * static_cast<std::size_t>(ranks)),
      ranks_(ranks) {
  static_assert(sizeof(Page) % alignof(RunningCandidate) == 0);
  void* addr = map_shared(bytes_, file);
  page_ = static_cast<Page*>(addr);
  slots_ = reinterpret_cast<RunningCandidate*>(static_cast<char*>(addr) + sizeof(Page));
}

JobProgress::~JobProgress() {
  munmap(page_, bytes_);
}

void JobProgress::start(std::span<const std::string> keys) {
  page_->points = 0;  // no half-written set is ever read as whole
  const std::size_t n = std::min(keys.size(), kMaxPoints);
  for (std::size_t i = 0; i < n; ++i) {
    std::strncpy(page_->keys[i], keys[i].c_str(), sizeof page_->keys[i] - 1);
    page_->keys[i][sizeof page_->keys[i] - 1] = '\0';
  }
  page_->points = n;
}

RunningCandidate* JobProgress::running(int rank) {
  return &slots_[rank];
}

std::string JobProgress::culprit() const {
  if (page_->points == 0) return "";
  if (page_->points == 1) return page_->keys[0];
  const RunningCandidate* least = std::min_element(
      slots_, slots_ + ranks_,
      [](const RunningCandidate& a, const RunningCandidate& b) { return a.calls < b.calls; });
  const auto i = static_cast<std::size_t>(least->candidate);
  return i < page_->points ? page_->keys[i] : "";
}

void JobProgress::clear() {
  page_->points = 0;
  std::fill(slots_, slots_ + ranks_, RunningCandidate{});
  last_calls_ = 0;
  last_change_ = std::chrono::steady_clock::now();
}

namespace {

// "stopped", "sleeping", ... from /proc/<pid>/stat's state letter.
std::string process_state(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const std::size_t after_name = line.rfind(") ");
  if (after_name == std::string::npos || after_name + 2 >= line.size()) return "gone";
  switch (line[after_name + 2]) {
    case 'R': return "running";
    case 'S': return "sleeping";
    case 'D': return "in uninterruptible wait";
    case 'T':
    case 't': return "stopped";
    case 'Z': return "exited";
    default: return std::string("state ") + line[after_name + 2];
  }
}

}  // namespace

std::string JobProgress::stalled(std::chrono::duration<double> limit) {
  uint64_t calls = 0, least = UINT64_MAX;
  for (int r = 0; r < ranks_; ++r) {
    calls += slots_[r].calls;
    least = std::min(least, slots_[r].calls);
  }
  const auto now = std::chrono::steady_clock::now();
  if (calls != last_calls_) {
    last_calls_ = calls;
    last_change_ = now;
  }
  if (now - last_change_ < limit) return "";
  std::string behind;
  for (int r = 0; r < ranks_; ++r)
    if (slots_[r].calls == least)
      behind += (behind.empty() ? "" : ", ") + std::string("rank ") + std::to_string(r) + " (pid " +
                std::to_string(slots_[r].pid) + ", " + process_state(slots_[r].pid) + ")";
  std::ostringstream why;
  why << "no progress for " << limit.count() << " s: got least far " << behind;
  return why.str();
}

}  // namespace cct::tuner
