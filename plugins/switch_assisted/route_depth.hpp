// The switches a switch-assisted collective's packets pass on their way:
// the route tree over a communicator's ranks grows a level each time the
// ranks it reaches multiply by the switches' radix, which the algorithm
// does not know. log2 of the ranks stands for that depth in a cost shape
// (cct/sdk/cost.hpp); the tuner's fitted cost per message absorbs the
// radix. The simulated seed fabric bears it out: switch_reduce of 1 KiB
// takes 10.6, 18.8 and 27.1 us at 4, 16 and 64 DSPs, a step per level.
#pragma once

#include "cct/sdk/cost.hpp"

namespace cct::plugins::switch_assisted {

inline double route_depth(int ranks) {
  return sdk::steps_to_reach(ranks, 2);
}

}  // namespace cct::plugins::switch_assisted
