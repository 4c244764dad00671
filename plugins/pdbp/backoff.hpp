// How a pool thread waits when none of its flows can move: a short spin
// when every thread has a core of its own (a peer on another core is a few
// hundred nanoseconds away, and a yield costs more), then yields, then
// sleeps that double up to a cap. When ranks and their pool threads
// outnumber the cores, a waiting thread skips the spin: the rank it waits
// for may need its core. With a timeout (CCT_TIMEOUT) a thread that slept
// that long without its flows moving gives up.
#pragma once

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace cct::plugins::pdbp {

class Backoff {
 public:
  // timeout_s: how long the sleeping phase may last with no reset() before
  // pause() says to give up (cct_comm.timeout_s); 0: never.
  Backoff(bool spin, double timeout_s) : spin_limit_(spin ? kSpins : 0), timeout_(timeout_s) {}

  // False once it has slept for the timeout since the last reset().
  [[nodiscard]] bool pause() {
    if (spins_ < spin_limit_) {
      ++spins_;
      cpu_relax();
    } else if (yields_ < kYields) {
      ++yields_;
      sched_yield();
    } else {
      // The clock is read only while sleeping: spinning stays as cheap.
      const auto now = std::chrono::steady_clock::now();
      if (!asleep_) {
        asleep_ = true;
        slept_since_ = now;
      } else if (timeout_.count() > 0 && now - slept_since_ >= timeout_) {
        return false;
      }
      std::this_thread::sleep_for(sleep_);
      sleep_ = std::min(2 * sleep_, kMaxSleep);
    }
    return true;
  }
  void reset() {
    spins_ = 0;
    yields_ = 0;
    sleep_ = kFirstSleep;
    asleep_ = false;
  }

 private:
  static void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#endif
  }

  static constexpr int kSpins = 64;
  static constexpr int kYields = 16;
  static constexpr std::chrono::microseconds kFirstSleep{1};
  static constexpr std::chrono::microseconds kMaxSleep{100};

  int spin_limit_;
  std::chrono::duration<double> timeout_;
  int spins_ = 0;
  int yields_ = 0;
  std::chrono::microseconds sleep_ = kFirstSleep;
  bool asleep_ = false;
  std::chrono::steady_clock::time_point slept_since_;
};

}  // namespace cct::plugins::pdbp
