// ccautotune C++ SDK: how a rank or thread waits for what another one will
// do.
//
// A wait goes through three phases, each shorter to leave than the next:
//   1. spin with the CPU's pause instruction: when every waiter has a core
//      of its own, the awaited event is usually a few hundred nanoseconds
//      away, and anything slower than spinning adds to every step;
//   2. yield the core: a peer that shares it runs (alone, a yield returns
//      at once);
//   3. sleep for periods that double up to a cap: a peer that is late by
//      milliseconds (descheduled, or computing) is not robbed of its core
//      by waiters burning it. A sleep costs at least the kernel's timer
//      slack (about 50 us), which is why the phases before it exist.
// Where waiters outnumber the cores, the one that would produce the event
// is often waiting for the very core a spinner holds: users then give no
// spins. With a timeout, a wait that has slept that long since its last
// progress gives up, so a hung or dead peer ends in an error instead of a
// silent hang. The clock is read only in the sleeping phase: spinning and
// yielding cost nothing more than they would without a timeout.
//
// The phases' lengths belong to each user, beside the reasons for them.
#pragma once

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <ctime>

namespace cct::sdk {

// How long each phase lasts.
struct BackoffPhases {
  uint32_t spins = 0;          // pause instructions before the first yield
  uint32_t yields = 0;         // yields before the first sleep
  long first_sleep_ns = 1000;  // the sleeps double from this ...
  long max_sleep_ns = 64000;   // ... up to this
};

class Backoff {
 public:
  // timeout_s: how long the sleeping phase may last with no reset() before
  // pause() says to give up; 0: never.
  Backoff(const BackoffPhases& phases, double timeout_s)
      : phases_(phases), timeout_(timeout_s), sleep_ns_(phases.first_sleep_ns) {}

  // One step of waiting; each waits as long as the last or longer. False
  // once the wait has slept for the timeout since the last reset(): the
  // caller gives up (and the next call starts that count again).
  [[nodiscard]] bool pause() {
    if (step_ < phases_.spins) {
      ++step_;
      cpu_relax();
    } else if (step_ < phases_.spins + phases_.yields) {
      ++step_;
      sched_yield();
    } else {
      const auto now = std::chrono::steady_clock::now();
      if (!asleep_) {
        asleep_ = true;
        slept_since_ = now;
      } else if (timeout_.count() > 0 && now - slept_since_ >= timeout_) {
        asleep_ = false;
        return false;
      }
      const timespec period{0, sleep_ns_};
      nanosleep(&period, nullptr);
      sleep_ns_ = std::min(2 * sleep_ns_, phases_.max_sleep_ns);
    }
    return true;
  }

  // The awaited progress happened: the next wait starts with spinning.
  void reset() {
    step_ = 0;
    sleep_ns_ = phases_.first_sleep_ns;
    asleep_ = false;
  }

  // Whether the wait is in its sleeping phase.
  bool asleep() const { return asleep_; }

 private:
  static void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#endif
  }

  BackoffPhases phases_;
  std::chrono::duration<double> timeout_;
  uint32_t step_ = 0;
  long sleep_ns_;
  bool asleep_ = false;
  std::chrono::steady_clock::time_point slept_since_;
};

}  // namespace cct::sdk
