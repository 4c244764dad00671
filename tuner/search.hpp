// ccautotune tuner: which points to measure, and how hard (docs/design.md,
// "Search").
//
// An exhaustive grid gives every candidate (algorithm and parameter values)
// the full timing method at every size, and most of that time goes to
// candidates that are clearly slower. For one collective on one
// communicator the search instead does, size by size (ascending):
//
// 1. Successive halving. Every candidate gets a cheap round of
//    `first_round_reps` repetitions; the slower half is pruned, except the
//    candidates within 5% of the round's fastest, the previous size's
//    winner (which keeps the profile's ranges continuous) and the MPI
//    library's own call (`mpi`: only a finalist timed beside it may take
//    its place, so a profile can only match or beat the library); the
//    survivors get
//    a round twice as long; until at most `finalists` are left or a round
//    prunes nobody. A pruned candidate's row carries its last round.
// 2. The finalists get the full timing method (MeasureOptions), timed
//    together: their repetitions interleaved (Measurer::measure_together).
//
// 3. Confirmation (`confirm`; a tuning on real clocks). The figures of
//    step 2 (each call after the runtime's own barrier, rotated among the
//    finalists, the maximum over ranks, the algorithms as bare plans) can
//    favour an algorithm over the library's call by more than a program
//    ever sees (measured: ring allgather of 32 KiB at 0.6x of Open MPI's
//    in the tuner, 1.5-2x in an OSU-style loop). So the winner, the
//    fastest other finalist, the library's own call and the previous
//    size's winner, where they are finalists, are timed again as an
//    outside benchmark calls them (Measurer::measure_as_programs; the
//    algorithms through a runtime, paying its dispatch), and those
//    figures decide the size. A vector collective's candidates are timed
//    so in each count pattern apart, and each competes with its worst
//    pattern (pattern_figures.hpp): a pick must hold for equal blocks and
//    for skewed ones, not only on their sum.
//    Then the same candidates are timed so again in a second job
//    (`reconfirm`: ccautotune starts the job again with --resume
//    --reconfirm, so fresh processes on fresh shared memory), and the
//    slower of each candidate's two figures decides. Measured here: the
//    same algorithm's figure differed up to 3.5x between one job's
//    processes and the next's (two_level bcast of 1 MiB: 47 us in the
//    tuning job, 150-170 us in programs; the library's call within 5%), so
//    a pick that won only in the tuner's own processes lost in programs.
//
// Then, over the sizes of the collective:
//
// 4. Crossovers. Where neighbouring sizes have different winners A and B,
//    both are measured at the geometric midpoint (as programs call them
//    where sizes are confirmed), then again in the half
//    where the winner changes, `bisect_depth` levels deep, so that a range
//    boundary of the profile falls near the real crossover instead of at
//    the next power of two.
// 5. Checks. At off-grid sizes (halfway between every `check_every`-th
//    pair of grid sizes) the winners and best `finalists` of both
//    neighbours are measured (as programs call them where sizes are
//    confirmed, and then again in the second job: `recheck`). How the
//    profile's choice there compares with the fastest of them, each by its
//    slower job, is the profile's accuracy (see accuracy.hpp).
// 6. Element types. A reduction's figures above are of int32 sums (uint8
//    where the size is no multiple of 4: measure.hpp); a float or double
//    sum compiles to other instructions, in the algorithms and in the MPI
//    library. At each grid size the winner and the two fastest finalists
//    are measured again in int32 (measure.hpp, kReferenceType) and in
//    each of `datatypes` the size holds whole (a double at 8 bytes and
//    up), all in one interleaved measurement, their rows carrying the
//    type: figures of two separate measurements of one candidate differ
//    by up to 12% here, beyond the noise allowance of either, so a type is
//    weighed only against int32 figures taken beside its own. The profile
//    gets rules of a type only where it and int32 order two candidates
//    oppositely beyond the noise (variant_rules.hpp).
// 7. Roots. A rooted collective's figures above are of root 0. Where an
//    algorithm serves rank 0 better than another root (binomial gather
//    copies the blocks once more into rank order at another root; on the
//    RapidIO simulator switch_gather loses 64 B to linear at root 15
//    only), the winner at another root may be another. At each grid size the
//    winner and the two fastest finalists are measured again at root 0 and
//    at the last rank (the farthest from rank 0 in the node's order: the
//    last package, the last node), in one interleaved measurement, their
//    rows carrying the root. The profile gets rules of the roots other
//    than 0 only where the two roots order two candidates oppositely
//    beyond the noise (variant_rules.hpp). Nothing on one rank.
//    Beyond the two smallest communicator sizes, steps 6 and 7 are left
//    out for a collective whose types, or roots, were timed below and got
//    no rules of their own there (shortlist.hpp); --exhaustive keeps them.
//
// On a simulated platform (exact figures at one repetition) there is no
// halving: every candidate is measured once, fully. Which candidates reach
// the search at all is the job's shortlist (shortlist.hpp).
//
// Every figure goes to the results file with its stage. A size that already
// has rows (--resume) is not searched again: its missing candidates are
// measured fully, as an exhaustive run would, and crossovers and checks
// already measured are reused, so a resumed run repeats no finished point.
#pragma once

#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "tuner/plan_space.hpp"
#include "tuner/results_csv.hpp"

namespace cct::tuner {

struct SearchOptions {
  bool exhaustive = false;    // no halving: every candidate measured fully
  std::size_t finalists = 3;  // halving stops at this many
  int first_round_reps = 4;   // repetitions of the first screening round
  int bisect_depth = 2;       // crossover levels; 0: none
  int check_every = 3;        // a check in every 3rd gap between grid sizes; 0: none
  bool confirm = false;       // step 3 (on a simulated platform figures already hold)
  bool reconfirm = false;     // step 3 again in this job, a second one (fresh processes)
  // Step 6's element types besides kReferenceType; none: no step 6.
  std::vector<cct_datatype> datatypes;
  bool other_root = false;  // step 7 (ccautotune's default: --roots)
};

// What the search needs from the job that runs it, which owns the plans,
// the buffers, the results file and the progress line. Every call is
// collective: the ranks run the same search on identical figures.
class PointMeasurer {
 public:
  virtual ~PointMeasurer() = default;
  // A screening round of `reps` repetitions; nothing is written.
  virtual PointResult screen(const Point& p, int reps) = 0;
  // The full timing method; the row is written with `stage`.
  virtual PointResult measure(const Point& p, Stage stage) = 0;
  // The same for candidates of one call, timed together, their repetitions
  // interleaved (Measurer::measure_together); a row each, in their order.
  virtual std::vector<PointResult> measure_together(std::span<const Point* const> points,
                                                    Stage stage) = 0;
  // Candidates of one call timed as programs call them
  // (Measurer::measure_as_programs); a row each with `stage`, in their
  // order. expected_s: an earlier figure of each, which sizes the blocks.
  virtual std::vector<PointResult> confirm(std::span<const Point* const> points,
                                           std::span<const double> expected_s, Stage stage) = 0;
  // p was pruned after a screening round that gave `last`: its row is written.
  virtual void pruned(const Point& p, const PointResult& last) = 0;
  // Why p (a crossover or check point, not in the space) cannot run; empty
  // when it can.
  virtual std::string why_unusable(const Point& p) = 0;
  // `points` more will be measured than the space holds (crossovers, checks).
  virtual void planned(std::size_t points) = 0;
};

// Searches the points of one collective (as plan_space orders them) on one
// communicator. `known` holds the rows of earlier runs by key (--resume).
void search_collective(std::span<const Point> points, const std::map<std::string, ResultRow>& known,
                       const SearchOptions& opts, PointMeasurer& measurer);

}  // namespace cct::tuner
