// Barrier on a switch counter (the MPIRIO seed's barrier).
//
// Each rank adds 1 to counter 0 of the transport (kept by a switch) and
// waits until the counter reaches the end of its generation: a rank whose
// add returned `old` is in generation old / size, which ends when the
// counter reaches (old / size + 1) * size. Two packets per rank (the add
// and the switch's notification) instead of a dissemination barrier's
// log2(N) rounds of DSP-to-DSP messages.
//
// The generation comes from the counter itself, not from state in the
// plan: barrier k of a communicator takes exactly the values k*size ..
// (k+1)*size - 1, because no rank can add for barrier k+1 before the
// counter reached (k+1)*size. So several plans on one communicator (the
// runtime's, a test's) share counter 0 safely, in whatever order they are
// used, as long as every rank calls its barriers in the same order, which
// a collective requires anyway.
#pragma once

#include <span>

#include "cct/sdk/algorithm.hpp"

namespace cct::plugins::switch_assisted {

class CounterBarrier {
 public:
  static constexpr sdk::Info info{
      .name = "counter_barrier",
      .doc = "fetch_add on a switch counter, then wait for the generation's last arrival",
      .collective = CCT_BARRIER,
      .required_caps = CCT_CAP_ATOMIC,
  };

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  CounterBarrier(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  sdk::Comm comm_;
};

}  // namespace cct::plugins::switch_assisted
