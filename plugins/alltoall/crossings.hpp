// What an alltoall carries across the communicator's halves
// (cct_cost.bisection_bytes) when every block goes straight to its
// destination, whatever the schedule (pairwise, linear, a one-factorisation,
// shared-memory flows): shared by the alltoall and alltoallv algorithms.
#pragma once

namespace cct::plugins::alltoall {

// The blocks between ranks of different halves: each of the p / 2 lower
// ranks sends one to each of the p - p / 2 upper ones and back, the sum
// over k of sdk::shift_crossing(p, k) (or of xor_crossing on powers of two).
inline double direct_crossings(int p) {
  return 2.0 * (p / 2) * (p - p / 2);
}

}  // namespace cct::plugins::alltoall
