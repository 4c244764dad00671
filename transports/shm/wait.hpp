// How a rank waits for another one, in wait_u64 and in waitall: the SDK's
// Backoff (cct/sdk/backoff.hpp says why it spins, yields, then sleeps),
// with the shm transport's phases, and a word in the segment that tells
// the peers whether this rank sleeps in a wait or gave one up.
//
// When ranks outnumber the cores they may run on, the rank that would
// produce the event is often waiting for the very core a spinner holds, so
// spinning only delays it: oversubscribed instances skip the spin and yield
// at once. (8 ranks on 2 cores would otherwise crawl.)
#pragma once

#include <sched.h>

#include <cstdint>

#include "cct/abi/transport.h"
#include "cct/sdk/backoff.hpp"

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
      : policy_(policy), wait_(phases(policy.oversubscribed), policy.timeout_s) {}
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
  // 2000 pauses are roughly 10-50 us of spinning; sleeps up to 64 us.
  static constexpr sdk::BackoffPhases phases(bool oversubscribed) {
    return {oversubscribed ? 0u : 2000u, 16, 1000, 64000};
  }

  const WaitPolicy& policy_;
  sdk::Backoff wait_;
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
