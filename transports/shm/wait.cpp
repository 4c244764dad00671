// The wait policy of the shm transport (see wait.hpp for the why).
#include "wait.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "layout.hpp"

namespace cct::shm {
namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// What Open MPI's and MPICH's launchers say about this machine, 0 when
// neither does.
int ranks_the_launcher_put_here() {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"})
    if (const char* text = std::getenv(name); text != nullptr) return std::atoi(text);
  return 0;
}

}  // namespace

bool Backoff::pause() {
  if (step_ < spins_) {
    cpu_relax();
  } else if (step_ < spins_ + kYields) {
    sched_yield();
  } else {
    if (!asleep_) {
      start_sleeping();
    } else if (policy_.timeout_s > 0 &&
               std::chrono::duration<double>(std::chrono::steady_clock::now() - slept_since_)
                       .count() >= policy_.timeout_s) {
      if (policy_.waiting != nullptr) store_release(policy_.waiting, kGaveUp);
      asleep_ = false;  // the word keeps saying kGaveUp
      return false;
    }
    timespec ts{0, sleep_ns_};
    nanosleep(&ts, nullptr);
    sleep_ns_ = std::min(2 * sleep_ns_, kMaxSleepNs);
    return true;  // stays in the sleeping phase
  }
  ++step_;
  return true;
}

void Backoff::start_sleeping() {
  asleep_ = true;
  slept_since_ = std::chrono::steady_clock::now();
  if (policy_.waiting != nullptr) store_release(policy_.waiting, kWaiting);
}

void Backoff::reset() {
  if (asleep_ && policy_.waiting != nullptr) store_release(policy_.waiting, kNotWaiting);
  asleep_ = false;
  step_ = 0;
  sleep_ns_ = kFirstSleepNs;
}

bool wait_for(const uint64_t* word, uint64_t value, cct_wait_cmp cmp, const WaitPolicy& policy) {
  Backoff backoff(policy);
  for (;;) {
    uint64_t now = load_acquire(word);
    if (cmp == CCT_WAIT_EQ ? now == value : now >= value) return true;
    if (!backoff.pause()) return false;
  }
}

cpu_set_t allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return set;
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  for (long cpu = 0; cpu < std::max(online, 1L) && cpu < CPU_SETSIZE; ++cpu) CPU_SET(cpu, &set);
  return set;
}

bool ranks_outnumber_cpus(const cpu_set_t* sets, int ranks) {
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int r = 0; r < ranks; ++r) CPU_OR(&all, &all, &sets[r]);
  return CPU_COUNT(&all) < std::max(ranks, ranks_the_launcher_put_here());
}

}  // namespace cct::shm
