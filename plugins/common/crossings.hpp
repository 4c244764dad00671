// What the common schedules carry across the communicator's halves
// (cct_cost.bisection_bytes), in blocks summed over every rank and step:
// a ring's, Bruck's, recursive doubling's and halving's over the fold, and
// a direct exchange's (every block straight to its destination, whatever
// the schedule: pairwise, linear, a one-factorisation, shared-memory
// flows). Shared by every algorithm that runs these steps.
#pragma once

#include <algorithm>

#include "cct/sdk/cost.hpp"
#include "common/fold.hpp"

namespace cct::plugins {

// A ring's p - 1 steps, each rank passing one block to rank + 1: two
// crossings a step.
inline double ring_crossings(int p) {
  return (p - 1) * sdk::shift_crossing(p, 1);
}

// Bruck's steps d = 1, 2, 4, .., each rank sending min(d, p - d) blocks to
// rank - d.
inline double bruck_crossings(int p) {
  double blocks = 0;
  for (int d = 1; d < p; d *= 2) blocks += sdk::shift_crossing(p, p - d) * std::min(d, p - d);
  return blocks;
}

// The cost of a Bruck allgather of `block` bytes a rank (the allgather's
// and the allgatherv's of equal blocks): ceil(log2 n) steps of min(d, n -
// d) blocks, n - 1 in all, then the whole result copied once (out of
// rotation or scratch); across the halves, bruck_crossings.
inline sdk::CostShape bruck_allgather_cost(const sdk::Comm& comm, double block) {
  const int n = comm.size();
  return sdk::CostShape()
      .send(sdk::outer_span(comm), sdk::steps_to_reach(n, 2), (n - 1) * block)
      .copy(n * block)
      .cross(bruck_crossings(n) * block);
}

// Of the participants of the fold of n ranks (common/fold.hpp, root 0),
// those whose exchange with participant id ^ d crosses the halves.
inline double fold_crossing(int n, int d) {
  return sdk::crossing_ranks(n, [&](int r) {
    const Fold fold(n, r);
    return fold.sits_out() ? -1 : fold.rank_of(fold.id() ^ d);
  });
}

// The fold's own messages that cross the halves, in one direction: those
// of fold_in (from the ranks that sit out), as many as fold_out's back.
inline double fold_pair_crossing(int n) {
  return sdk::crossing_ranks(n, [&](int r) {
    const Fold fold(n, r);
    return fold.sits_out() ? fold.partner() : -1;
  });
}

// Recursive doubling over the fold's p participants (common/doubling.hpp),
// in blocks of 1 / p of the result: at d = 1, 2, .., p / 2 each swaps its
// window of d blocks with participant id ^ d. Recursive halving
// (common/halving.hpp) runs the same windows in reverse.
inline double doubling_crossings(int n) {
  const int p = Fold(n, 0).pof2();
  double blocks = 0;
  for (int d = 1; d < p; d *= 2) blocks += fold_crossing(n, d) * d;
  return blocks;
}

// The blocks between ranks of different halves in a direct exchange: each
// of the p / 2 lower ranks sends one to each of the p - p / 2 upper ones
// and back, the sum over k of sdk::shift_crossing(p, k) (or of
// xor_crossing on powers of two).
inline double direct_crossings(int p) {
  return 2.0 * (p / 2) * (p - p / 2);
}

}  // namespace cct::plugins
