// ccautotune tuner: one rule for every size where choosing by size costs
// more than it saves.
//
// No rank knows the size of a gatherv, scatterv or alltoallv call alone
// (CollectiveInfo::key_parts). Where a communicator's rules for such a
// collective differ by size, the runtime makes every call first agree on
// its size: one small allreduce, a rendezvous of all ranks, also when the
// rule then keeps the MPI library's call (Runtime::agreed_key). The
// tuner's figures do not hold that cost, so per-size winners can lose to
// the library's own call on every small message (measured: gatherv of
// 64 B on 2 ranks 1.4x, 8x in skewed blocks, where Open MPI needs no
// rendezvous). With one rule for every size no call agrees on anything.
//
// Per bucket (collective, transport, nodes, np) of such a collective
// whose winners differ, the agreement costs what the tuner measured for
// it on the same shape, the built-in default allreduce of one 8-byte
// element (Runtime::agreed_key runs exactly that), timed as every figure
// is, one call after a barrier; where that was not measured, what the
// bucket's cheapest call at its smallest size costs (one small collective
// on the same ranks). Then:
// - where the library's own call was measured (a tuning under MPI; at the
//   grid sizes, a crossover size measuring only its neighbours' winners),
//   nothing may be slower than it by more than 5% at any of those sizes
//   (do no harm): choosing by size, with the agreement paid, only where
//   that holds at every one of them; else one rule for every size, the
//   candidate with the lowest geometric mean against the library among
//   those slower nowhere, at worst the library's own call (which the
//   interposer then hands every call of, untouched);
// - without the library, each candidate measured at every size is
//   compared, size by size, with the winner's figure plus the agreement;
//   the candidate with the lowest geometric mean ratio over the sizes
//   replaces the winners when that mean is below 1. Sizes count alike, as
//   the grid spaces them.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tuner/winners.hpp"

namespace cct::tuner {

// One measured size of a bucket: its winner and the figure of every
// candidate there (the full measurements, and the screening figure of
// candidates pruned there).
struct SizeCandidates {
  const Winner* winner = nullptr;
  std::vector<const Winner*> rows;
};

struct OneRule {
  std::vector<Winner> winners;  // one per size, the same candidate
  std::string note;             // why, for people
};

// The bucket's sizes ascending. Nothing where its collective's size is
// known to every rank, its winners are one candidate already, or no
// candidate measured at every size beats the winners with the agreement.
// agreement_s: the measured agreement on this bucket's shape, if any.
std::optional<OneRule> one_rule(std::span<const SizeCandidates> bucket,
                                std::optional<double> agreement_s);

}  // namespace cct::tuner
