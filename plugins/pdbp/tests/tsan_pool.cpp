// PDBP's pool under ThreadSanitizer: the work-stealing thread pool and the
// buffer policy, with plain (non-atomic) task state handed between threads,
// so that a missing happens-before in a deque, a job hand-off or the block
// pool is a reported race. Built with -fsanitize=thread (CMakeLists.txt
// here); any report fails the run (halt_on_error).
#define CATCH_CONFIG_MAIN
#include <atomic>
#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "pdbp/buffer_policy.hpp"
#include "pdbp/work_stealing_pool.hpp"

namespace {

using cct::plugins::pdbp::BufferPolicy;
using cct::plugins::pdbp::WorkStealingPool;
using Step = WorkStealingPool::Step;

constexpr int kThreads = 4;

}  // namespace

TEST_CASE("idle threads steal the tasks of a busy one") {
  WorkStealingPool pool(kThreads, /*spin=*/false);
  constexpr std::size_t kTasks = 32;
  const std::thread::id caller = std::this_thread::get_id();
  std::vector<int> runs(kTasks, 0);  // plain: written by whichever thread runs the task
  std::atomic<std::size_t> finished{0};
  std::atomic<bool> caller_blocked{false};
  pool.run(kTasks, [&](std::size_t task) {
    ++runs[task];
    // The caller's first task holds the caller until every other task is
    // done, the rest of its deque included: those must be stolen.
    if (std::this_thread::get_id() == caller && !caller_blocked.exchange(true)) {
      while (finished.load() < kTasks - 1) std::this_thread::yield();
    } else {
      finished.fetch_add(1);
    }
    return Step::done;
  });
  CHECK(pool.steals() > 0);
  for (int r : runs) CHECK(r == 1);
}

TEST_CASE("flows that advance in steps move between threads, job after job") {
  WorkStealingPool pool(kThreads, /*spin=*/false);
  constexpr std::size_t kTasks = 24;
  constexpr int kStepsPerTask = 40;
  for (int job = 0; job < 20; ++job) {
    std::vector<int> steps(kTasks, 0);  // plain, handed over through the deques
    pool.run(kTasks, [&](std::size_t task) {
      const int n = ++steps[task];
      if (n == kStepsPerTask) return Step::done;
      // Some steps cannot move, as a flow waiting on a slow peer.
      return (n + static_cast<int>(task)) % 3 == 0 ? Step::stuck : Step::moved;
    });
    for (int n : steps) REQUIRE(n == kStepsPerTask);
  }
}

TEST_CASE("flows share an exhausted block pool, wait and recover") {
  constexpr int kFlows = 8;
  constexpr int kBlocks = 3;  // far fewer than the flows want
  constexpr int kBlocksPerFlow = 60;
  BufferPolicy policy(
      {.peers = kFlows, .initial_slots = 2, .threshold_percent = 50, .blocks = kBlocks});
  std::vector<int> owner(kBlocks, -1);  // plain: only the holder of a block touches it
  struct Flow {
    std::vector<uint32_t> held;
    int taken = 0;
  };
  std::vector<Flow> flows(kFlows);
  std::atomic<int> double_owned{0};
  std::atomic<int> exhausted{0};  // acquires that found no block in time
  WorkStealingPool pool(kThreads, /*spin=*/false);
  for (int job = 0; job < 5; ++job) {
    policy.start_call();
    for (Flow& f : flows) f = Flow{};
    pool.run(kFlows, [&](std::size_t task) {
      Flow& f = flows[task];
      const int peer = static_cast<int>(task);
      auto give_back_oldest = [&] {
        owner[f.held.front()] = -1;
        policy.release(peer, f.held.front());
        f.held.erase(f.held.begin());
      };
      // Hold up to two blocks, then give the oldest back (a peer drained it).
      if (f.held.size() == 2 || (f.taken == kBlocksPerFlow && !f.held.empty())) give_back_oldest();
      if (f.taken == kBlocksPerFlow) return f.held.empty() ? Step::done : Step::moved;
      const auto block = policy.acquire(peer, BufferPolicy::Patience{20});
      if (!block) {
        exhausted.fetch_add(1);
        // Exhausted: drain one of ours too, or every flow could end up
        // holding one block and waiting for a second.
        if (!f.held.empty()) give_back_oldest();
        return Step::stuck;
      }
      if (owner[*block] != -1) double_owned.fetch_add(1);
      owner[*block] = peer;
      f.held.push_back(*block);
      ++f.taken;
      return Step::moved;
    });
    CHECK(double_owned.load() == 0);
    CHECK(policy.free_blocks() == kBlocks);
  }
  // Each flow keeps its first block while it takes a second: four flows
  // are more than three blocks, so some acquires must have come back empty.
  CHECK(exhausted.load() > 0);
}

TEST_CASE("acquires that wait forever resume when another thread returns blocks") {
  constexpr int kBlocks = 2;
  BufferPolicy policy(
      {.peers = 3, .initial_slots = 4, .threshold_percent = 100, .blocks = kBlocks});
  std::vector<uint32_t> held;
  for (int i = 0; i < kBlocks; ++i) held.push_back(*policy.acquire(0, BufferPolicy::kForever));
  std::vector<uint32_t> got(2, 99);  // plain: each waiter writes its own entry
  std::vector<std::thread> waiters;
  for (int w = 0; w < 2; ++w)
    waiters.emplace_back([&, w] { got[w] = *policy.acquire(w + 1, BufferPolicy::kForever); });
  std::thread returner([&] {
    for (uint32_t block : held) policy.release(0, block);
  });
  returner.join();
  for (std::thread& t : waiters) t.join();
  CHECK(got[0] != got[1]);
  CHECK(got[0] < kBlocks);
  CHECK(got[1] < kBlocks);
  CHECK(policy.free_blocks() == 0);
}
