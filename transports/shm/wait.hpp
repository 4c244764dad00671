// How a rank waits for another one, in wait_u64 and in waitall.
//
// A waiting rank first spins with a pause instruction: when every rank has
// a core of its own, the event it waits for is usually a few hundred
// nanoseconds away and anything slower than spinning adds that latency to
// every step of a collective. If the event does not come, the rank yields
// the core, then sleeps for growing periods (up to 64 us, plus the kernel's
// timer slack): a peer that is late by milliseconds (descheduled, or
// computing) must not be robbed of its core by ranks burning it. With a
// timeout, a wait that slept that long without progress gives up, so a
// hung or dead peer ends in an error naming it instead of a silent hang.
//
// When ranks outnumber the cores they may run on, the rank that would
// produce the event is often waiting for the very core a spinner holds, so
// spinning only delays it: oversubscribed instances skip the spin and yield
// at once. (8 ranks on 2 cores would otherwise crawl.)
#pragma once

#include <sched.h>

#include <chrono>
#include <cstdint>

#include "cct/abi/transport.h"

namespace cct::shm {

// How the waits of one instance behave, the same for all of them.
struct WaitPolicy {
  bool oversubscribed = false;
  // A wait that goes this long without progress gives up (CCT_TIMEOUT,
  // cct_bootstrap.timeout_s); 0: never.
  double timeout_s = 0;
  // This rank's word in the segment (ControlLine::waiting): kWaiting while
  // it sleeps in a wait, kGaveUp once one gave up. A rank whose wait gives
  // up names the peers not waiting (stall.hpp). Null without a timeout.
  uint64_t* waiting = nullptr;
};

class Backoff {
 public:
  explicit Backoff(const WaitPolicy& policy)
      : policy_(policy), spins_(policy.oversubscribed ? 0 : kSpins) {}
  ~Backoff() { reset(); }
  Backoff(const Backoff&) = delete;
  Backoff& operator=(const Backoff&) = delete;

  // One step of waiting; each call waits a little longer than the last.
  // False once the wait has slept for the policy's timeout since the last
  // progress: the caller gives up.
  [[nodiscard]] bool pause();
  // Called when the awaited progress happened: the next wait spins again.
  void reset();

 private:
  static constexpr uint32_t kSpins = 2000;  // roughly 10-50 us of pause
  static constexpr uint32_t kYields = 16;
  static constexpr long kFirstSleepNs = 1000;
  static constexpr long kMaxSleepNs = 64000;

  void start_sleeping();

  const WaitPolicy& policy_;
  uint32_t spins_;
  uint32_t step_ = 0;
  long sleep_ns_ = kFirstSleepNs;
  bool asleep_ = false;  // in the sleeping phase
  // When the sleeping phase began: the clock is read only there, so
  // spinning costs nothing more than it did.
  std::chrono::steady_clock::time_point slept_since_;
};

// Waits with the policy above until *word satisfies cmp against value
// (acquire loads). False when it gave up (the policy's timeout).
[[nodiscard]] bool wait_for(const uint64_t* word, uint64_t value, cct_wait_cmp cmp,
                            const WaitPolicy& policy);

// The CPUs this process may run on (all online CPUs if that is unknown).
cpu_set_t allowed_cpus();

// True when the ranks, whose allowed CPUs are sets[0..ranks-1], outnumber
// the CPUs of the union of those sets. The ranks of an instance may be
// fewer than those sharing the machine (a node's group of a communicator
// that spans nodes; CCT_VIRTUAL_NODES's nodes all on one machine), so the
// count of ranks the MPI launcher put on this machine, when it says
// (OMPI_COMM_WORLD_LOCAL_SIZE, MPI_LOCALNRANKS), counts where it is larger.
bool ranks_outnumber_cpus(const cpu_set_t* sets, int ranks);

}  // namespace cct::shm
