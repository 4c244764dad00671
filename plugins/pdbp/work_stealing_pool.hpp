// The thread pool that moves PDBP's flows: per-thread work deques, and idle
// threads steal from busy ones (ParM's pool, the PDBP seed in docs/design.md).
//
// A job is a set of tasks, each a flow that advances in steps: a step does
// what it can now (copy the slots that are ready) and says whether the task
// is done, moved, or could not move. A task that is not done goes back to
// its thread's deque, so a thread keeps many flows in flight and never
// blocks on one whose peer is slow. Tasks start spread round-robin over the
// threads' deques; a thread pops its own deque from the back and, when it
// is empty, steals from the front of the others': flows whose peers are
// quick finish early, and the threads that ran them take over the rest.
//
// The thread calling run() is one of the workers, so a pool of one thread
// starts none: the right default when ranks outnumber cores. Alone, it
// needs neither deques nor locks and runs the tasks round-robin. A thread
// that went a whole round of its tasks without moving any backs off
// (cct/sdk/backoff.hpp), since what it waits for is often another rank.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "cct/sdk/backoff.hpp"
#include "pdbp/placement.hpp"

namespace cct::plugins::pdbp {

class WorkStealingPool {
 public:
  enum class Step { done, moved, stuck };
  using StepFn = std::function<Step(std::size_t task)>;

  // `threads` workers in all, the caller of run() included; the started
  // ones are bound near the caller (placement.hpp). Waiting threads spin
  // briefly before they yield when `spin` is set (pool_waits, in the
  // .cpp); a thread whose tasks stay stuck for timeout_s (0: never) ends
  // the job.
  WorkStealingPool(int threads, bool spin, double timeout_s = 0);
  ~WorkStealingPool();
  WorkStealingPool(const WorkStealingPool&) = delete;
  WorkStealingPool& operator=(const WorkStealingPool&) = delete;

  // Runs tasks 0..tasks-1 to completion: step(t) until it returns done.
  // Not reentrant: one job at a time. step must not throw (it may run on
  // a started thread, where nothing could catch it). False when a thread
  // gave up (its tasks stuck for the timeout): the tasks left are not done.
  bool run(std::size_t tasks, const StepFn& step);

  int threads() const { return static_cast<int>(deques_.size()); }
  // Tasks taken from another thread's deque, over the pool's life.
  std::size_t steals() const { return steals_.load(std::memory_order_relaxed); }

 private:
  // A fixed-capacity deque of task indices behind its own lock.
  class TaskDeque {
   public:
    void reset(std::size_t capacity);
    void push_back(std::size_t task);
    void push_front(std::size_t task);
    std::optional<std::size_t> pop_back();
    std::optional<std::size_t> pop_front();
    std::size_t size() const;

   private:
    mutable std::mutex mutex_;
    std::vector<std::size_t> ring_;
    std::size_t head_ = 0;
    std::size_t size_ = 0;
  };

  bool run_alone(std::size_t tasks, const StepFn& step);
  void serve(int self);  // a started thread: one job after another
  void work(int self);   // until the job's last task is done
  std::optional<std::size_t> steal(int thief);

  std::vector<std::unique_ptr<TaskDeque>> deques_;
  sdk::BackoffPhases waits_;
  double timeout_s_;
  std::unique_ptr<Placement> placement_;
  std::vector<std::thread> started_;
  std::vector<std::size_t> unfinished_;  // run_alone's tasks not done yet

  std::mutex job_mutex_;
  std::condition_variable job_changed_;
  const StepFn* step_ = nullptr;
  uint64_t generation_ = 0;  // jobs posted so far
  int working_ = 0;          // started threads still inside the current job
  bool stopping_ = false;

  std::atomic<std::size_t> remaining_{0};  // tasks of the current job not done
  std::atomic<bool> gave_up_{false};       // a thread of the current job timed out
  std::atomic<std::size_t> steals_{0};
};

}  // namespace cct::plugins::pdbp
