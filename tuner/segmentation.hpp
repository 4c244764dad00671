// ccautotune tuner: a bucket's size ranges as one segmentation.
//
// Picking each measured size's fastest and merging neighbours gives ranges
// that switch between candidates a fraction of a microsecond apart, and
// move from one tune to the next with the noise. Instead, over the sorted
// measured sizes of one bucket (collective, transport, nodes, np), the
// sequence of candidates is chosen that minimizes
//
//   sum over sizes of weight x loss(pick)  +  price x number of switches
//
// by a dynamic program over sizes x candidates (exact, O(sizes x
// candidates)). So a switch is made only where what it saves beyond the
// noise pays for it.
// - loss: how far the pick's figure lies above the size's fastest, as a
//   fraction of the fastest, the MPI library's own call counted less the
//   size's noise (tie_margin of the fastest), so that it wins every tie
//   within the noise (do no harm), and a value of an algorithm's
//   parameters no faster than its defaults where within half the noise of
//   them, so that values differing only in noise do not flip from one tune
//   to the next. Where the fastest so counted is not the library, the
//   first half of the noise is free to the other algorithms: candidates
//   that near-tie (values of one algorithm that behave alike at a size)
//   switch nowhere for it;
//   where it is the library, every fraction counts, so that a candidate
//   tied with the library gives way to it even at the price of a switch
//   (the tuner's figures of small calls flatter the algorithms: measured
//   from outside, such near-ties lost).
// - weight: the share of log size a measured size stands for (half the
//   log distance to each neighbour, the edges their one gap), in grid steps:
//   a crossover size measured between two grid sizes weighs less than they.
// - noise, of one size: the fastest's tie_margin (its own repetitions'
//   spread, 5% to 10%), or how far apart the two jobs' confirmations (fresh
//   processes) put the candidates, the median over them, where more (at
//   most 25%): on the project's 2-core VM processes disagree by 10-30%
//   where one process's repetitions agree within 5%.
// - price: the run's noise, the median over the bucket's sizes, in the
//   loss of one grid step: an island of one size between two ranges of
//   another pick must save more than twice the noise there.
// - a size where a candidate has no competing figure: where others were
//   confirmed (timed as programs call) and it has a full timing or a
//   screening figure, that scaled by the size's ratio of confirmed to full
//   figures (the median over the candidates that have both), but no faster
//   than the fastest confirmed (a lucky screening figure never wins): a
//   confirmation confirms a few candidates per size, and without this a
//   range could not go on across a size that did not confirm its pick;
//   where it was not
//   measured at all (a crossover size measures only its neighbours'
//   winners), its time interpolated in log time over log size between the
//   sizes it competed at on either side.
// - ties in the sum (within 1e-9) go to the library, then to the steadier
//   figures (the smaller spread from fastest to median repetition), then to
//   default parameter values, each weighed far below any real loss; a path
//   that stays on its pick wins a tie with one that switches.
// - sizes confirmed and sizes not, in one bucket: the confirmed ones are
//   segmented, and each size between two of them takes the pick of one
//   side. Where the two picks differ and both were timed at sizes between
//   (a crossover's bisection), the boundary is at the first of those where
//   the upper pick is no slower (the library's figure counted less the
//   noise, as above); where neither size between timed both, at the
//   geometric middle. A crossover times its neighbours' search winners in
//   one job, on another scale than the confirmations' slower job (the
//   library's small alltoall 0.44 us in one job, 0.86 in the other, both
//   confirmed, where a crossover timed pairwise at 0.75): let compete
//   there, such a figure made one-size islands of candidates that neither
//   neighbour picked (alltoall 40-64, 80-128, 144-256 B on the 2-core VM).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tuner/winners.hpp"

namespace cct::tuner {

// One measured size of a bucket: the rows competing there (pick_winners:
// the confirmations where there are any, else the full timings), and every
// candidate measured there at all.
struct SizeFigures {
  int64_t bytes = 0;
  std::vector<const Winner*> competing;  // not empty
  // Where the competing rows are confirmations, the other timings of the
  // size, one per candidate (confirmed or not): its full timing, else its
  // screening figure; else empty.
  struct Timed {
    const Winner* row = nullptr;
    bool full = false;  // a full timing, not a screening figure
  };
  std::vector<Timed> timed;
  std::vector<std::string> measured;  // choices, competing or not
  // Whether the competing rows are confirmations (timed as programs call
  // them, in one job or two). Where some sizes of a bucket are, those alone
  // decide its picks; a size between them (a crossover's, its neighbours'
  // search winners timed once) only places the boundary between the
  // picks on either side.
  bool confirmed = false;
};

struct Segmentation {
  // One per size: the pick's row there, or a copy of one of its rows with
  // the interpolated figures where it was not measured at that size.
  std::vector<Winner> picks;
  double switch_price = 0;  // in the loss of one grid step
};

// The sizes ascending, each with at least one competing row.
Segmentation segment(std::span<const SizeFigures> sizes);

}  // namespace cct::tuner
