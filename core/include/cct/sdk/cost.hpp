// ccautotune C++ SDK: stating an algorithm's cost shape (cct_cost).
//
// An algorithm class states its cost with an optional static member
//
//   static cct_cost cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
//                        std::span<const int64_t> params);
//
// which counts, along the critical path of one call (the longest chain of
// steps that wait for each other), the messages and the bytes they carry
// per span, and the bytes combined by the op or copied through memory;
// and, over the whole call, the bytes crossing between the communicator's
// halves (crossing_ranks and its kin count a step's crossings). The
// comm it gets holds the shape only (size and levels; no transport): the
// tuner asks for shapes no job has opened. Throw cct::sdk::Unsupported
// where the algorithm cannot say. Counts may be fractional (an average).
#pragma once

#include <cstddef>
#include <cstdint>

#include "cct/abi/algorithm.h"
#include "cct/sdk/comm.hpp"
#include "cct/sdk/datatype.hpp"

namespace cct::sdk {

// The number of steps that reach p ranks when each step multiplies the
// ranks reached by `base` (ceil(log_base p)); 0 for p <= 1.
constexpr double steps_to_reach(int64_t p, int64_t base) {
  double steps = 0;
  for (int64_t reached = 1; reached < p; reached *= base) ++steps;
  return steps;
}

// Of the ranks r of a communicator of p, those whose message to
// partner(r) crosses between its halves (ranks below p / 2 and the rest):
// a step's share of cct_cost.bisection_bytes, per byte each sends.
template <class Partner>
double crossing_ranks(int p, Partner partner) {
  const int half = p / 2;
  double crossing = 0;
  for (int r = 0; r < p; ++r) {
    const int to = partner(r);
    if (to >= 0 && to < p && (r < half) != (to < half)) ++crossing;
  }
  return crossing;
}

// The ranks of the upper half, p - p / 2 (none of one rank, which is rank
// 0 alone): each block to or from rank 0 of a rank there crosses the
// halves once (a linear or tree gather, scatter).
inline double upper_half(int p) {
  return p < 2 ? 0 : p - p / 2;
}

// ... sending to r + d (mod p): a ring's, dissemination's, Bruck's or a
// pairwise exchange's step.
inline double shift_crossing(int p, int d) {
  return crossing_ranks(p, [&](int r) { return (r + d) % p; });
}

// ... exchanging with r XOR d (where that is below p): a recursive
// doubling or halving step.
inline double xor_crossing(int p, int d) {
  return crossing_ranks(p, [&](int r) { return r ^ d; });
}

// The span of messages between any two ranks: the outermost one.
inline int outer_span(const Comm& comm) {
  return comm.levels();
}

// Bytes of `count` elements of the call's datatype.
inline double bytes_of(const cct_coll_args& args, std::size_t count) {
  return static_cast<double>(count) * static_cast<double>(dtype_size(args.dtype));
}

// A cost built term by term.
class CostShape {
 public:
  // Messages (and the bytes they carry) at one span.
  CostShape& send(int span, double messages, double bytes) {
    cost_.spans[span].messages += messages;
    cost_.spans[span].bytes += bytes;
    return *this;
  }
  CostShape& reduce(double bytes) {
    cost_.reduced_bytes += bytes;
    return *this;
  }
  CostShape& copy(double bytes) {
    cost_.copied_bytes += bytes;
    return *this;
  }
  // Bytes crossing between the communicator's halves (cct_cost).
  CostShape& cross(double bytes) {
    cost_.bisection_bytes += bytes;
    return *this;
  }
  // Everything of `other` once more (a phase run after this one).
  CostShape& then(const cct_cost& other) {
    for (int s = 0; s < CCT_COST_SPANS; ++s) send(s, other.spans[s].messages, other.spans[s].bytes);
    return reduce(other.reduced_bytes).copy(other.copied_bytes).cross(other.bisection_bytes);
  }
  operator cct_cost() const { return cost_; }  // NOLINT: the value is what the SDK returns

 private:
  cct_cost cost_{};
};

// The cost of a flat algorithm: its messages between any ranks.
inline CostShape flat_cost(const Comm& comm, double messages, double bytes, double reduced = 0) {
  return CostShape().send(outer_span(comm), messages, bytes).reduce(reduced);
}

}  // namespace cct::sdk
