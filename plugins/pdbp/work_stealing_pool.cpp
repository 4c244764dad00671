#include "pdbp/work_stealing_pool.hpp"

#include <stdexcept>

namespace cct::plugins::pdbp {
namespace {

// A waiting thread spins only briefly: a peer on another core is a few
// hundred nanoseconds away, and a yield costs more; but what it waits for
// is often another rank, which a long spin would rob of a core.
sdk::BackoffPhases pool_waits(bool spin) {
  return {spin ? 64u : 0u, 16, 1000, 100000};
}

}  // namespace

void WorkStealingPool::TaskDeque::reset(std::size_t capacity) {
  std::lock_guard lock(mutex_);
  if (ring_.size() < capacity) ring_.resize(capacity);
  head_ = 0;
  size_ = 0;
}

void WorkStealingPool::TaskDeque::push_back(std::size_t task) {
  std::lock_guard lock(mutex_);
  ring_[(head_ + size_++) % ring_.size()] = task;
}

void WorkStealingPool::TaskDeque::push_front(std::size_t task) {
  std::lock_guard lock(mutex_);
  head_ = (head_ + ring_.size() - 1) % ring_.size();
  ring_[head_] = task;
  ++size_;
}

std::optional<std::size_t> WorkStealingPool::TaskDeque::pop_back() {
  std::lock_guard lock(mutex_);
  if (size_ == 0) return std::nullopt;
  return ring_[(head_ + --size_) % ring_.size()];
}

std::optional<std::size_t> WorkStealingPool::TaskDeque::pop_front() {
  std::lock_guard lock(mutex_);
  if (size_ == 0) return std::nullopt;
  const std::size_t task = ring_[head_];
  head_ = (head_ + 1) % ring_.size();
  --size_;
  return task;
}

std::size_t WorkStealingPool::TaskDeque::size() const {
  std::lock_guard lock(mutex_);
  return size_;
}

WorkStealingPool::WorkStealingPool(int threads, bool spin, double timeout_s)
    : waits_(pool_waits(spin)), timeout_s_(timeout_s) {
  if (threads < 1) throw std::invalid_argument("pdbp: a pool needs at least one thread");
  for (int t = 0; t < threads; ++t) deques_.push_back(std::make_unique<TaskDeque>());
  if (threads > 1) placement_ = std::make_unique<Placement>();
  for (int t = 1; t < threads; ++t) started_.emplace_back([this, t] { serve(t); });
}

WorkStealingPool::~WorkStealingPool() {
  {
    std::lock_guard lock(job_mutex_);
    stopping_ = true;
  }
  job_changed_.notify_all();
  for (std::thread& thread : started_) thread.join();
}

bool WorkStealingPool::run(std::size_t tasks, const StepFn& step) {
  if (tasks == 0) return true;
  if (started_.empty()) return run_alone(tasks, step);
  for (auto& deque : deques_) deque->reset(tasks);
  for (std::size_t t = 0; t < tasks; ++t) deques_[t % deques_.size()]->push_back(t);
  remaining_.store(tasks, std::memory_order_relaxed);
  gave_up_.store(false, std::memory_order_relaxed);
  {
    std::lock_guard lock(job_mutex_);
    step_ = &step;
    working_ = static_cast<int>(started_.size());
    ++generation_;
  }
  job_changed_.notify_all();
  work(0);
  std::unique_lock lock(job_mutex_);
  job_changed_.wait(lock, [&] { return working_ == 0; });
  step_ = nullptr;
  return !gave_up_.load(std::memory_order_relaxed);
}

bool WorkStealingPool::run_alone(std::size_t tasks, const StepFn& step) {
  unfinished_.resize(tasks);
  for (std::size_t t = 0; t < tasks; ++t) unfinished_[t] = t;
  std::size_t left = tasks;
  sdk::Backoff backoff(waits_, timeout_s_);
  while (left > 0) {
    bool moved = false;
    for (std::size_t i = 0; i < left;) {
      const Step result = step(unfinished_[i]);
      moved = moved || result != Step::stuck;
      if (result == Step::done)
        unfinished_[i] = unfinished_[--left];
      else
        ++i;
    }
    if (moved)
      backoff.reset();
    else if (!backoff.pause())
      return false;
  }
  return true;
}

void WorkStealingPool::serve(int self) {
  if (placement_) placement_->bind_this_thread();
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(job_mutex_);
      job_changed_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    work(self);
    {
      std::lock_guard lock(job_mutex_);
      --working_;
    }
    job_changed_.notify_all();
  }
}

void WorkStealingPool::work(int self) {
  TaskDeque& own = *deques_[self];
  sdk::Backoff backoff(waits_, timeout_s_);
  std::size_t stuck_in_a_row = 0;
  while (remaining_.load(std::memory_order_acquire) > 0 &&
         !gave_up_.load(std::memory_order_relaxed)) {
    std::optional<std::size_t> task = own.pop_back();
    if (!task) task = steal(self);
    if (!task) {
      // Nothing to do here while others finish: not this thread's stall.
      if (!backoff.pause()) backoff.reset();
      continue;
    }
    const Step step = (*step_)(*task);
    if (step == Step::done) {
      remaining_.fetch_sub(1, std::memory_order_acq_rel);
    } else {
      own.push_front(*task);  // behind this thread's other flows
    }
    if (step != Step::stuck) {
      stuck_in_a_row = 0;
      backoff.reset();
    } else if (++stuck_in_a_row > own.size()) {
      stuck_in_a_row = 0;  // a whole round without a move
      if (!backoff.pause()) gave_up_.store(true, std::memory_order_relaxed);
    }
  }
}

std::optional<std::size_t> WorkStealingPool::steal(int thief) {
  const int n = threads();
  for (int k = 1; k < n; ++k) {
    if (auto task = deques_[(thief + k) % n]->pop_front()) {
      steals_.fetch_add(1, std::memory_order_relaxed);
      return task;
    }
  }
  return std::nullopt;
}

}  // namespace cct::plugins::pdbp
