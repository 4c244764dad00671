#include "tuner/job_progress.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "cct/error.hpp"

namespace cct::tuner {

// The mapping: the page, then one RunningCandidate per rank.
struct JobProgress::Page {
  std::size_t points = 0;
  char keys[kMaxPoints][512] = {};
};
JobProgress::JobProgress(int ranks)
    : bytes_(sizeof(Page) + sizeof(RunningCandidate) * static_cast<std::size_t>(ranks)),
      ranks_(ranks) {
  static_assert(sizeof(Page) % alignof(RunningCandidate) == 0);
  void* addr = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (addr == MAP_FAILED)
    throw Error(std::string("cannot map the job's progress: ") + std::strerror(errno));
  page_ = new (addr) Page{};
  slots_ = new (static_cast<char*>(addr) + sizeof(Page)) RunningCandidate[ranks]{};
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
}

}  // namespace cct::tuner
