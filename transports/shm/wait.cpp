// The wait policy of the shm transport (see wait.hpp for the why).
#include "wait.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "layout.hpp"

namespace cct::shm {
namespace {

// What Open MPI's and MPICH's launchers say about this machine, 0 when
// neither does.
int ranks_the_launcher_put_here() {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"})
    if (const char* text = std::getenv(name); text != nullptr) return std::atoi(text);
  return 0;
}

}  // namespace

bool Backoff::pause() {
  const bool was_asleep = wait_.asleep();
  if (!wait_.pause()) {
    // The word keeps saying so: reset() leaves it once the wait gave up.
    if (policy_.waiting != nullptr) store_release(policy_.waiting, kGaveUp);
    return false;
  }
  if (!was_asleep && wait_.asleep() && policy_.waiting != nullptr)
    store_release(policy_.waiting, kWaiting);
  return true;
}

void Backoff::reset() {
  if (wait_.asleep() && policy_.waiting != nullptr) store_release(policy_.waiting, kNotWaiting);
  wait_.reset();
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
