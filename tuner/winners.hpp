// ccautotune tuner: from the raw results to the rules of a profile.
//
// The candidates of a point group (collective, transport, nodes, np,
// bytes) are its competing rows: where it has confirmation rows (timed as
// programs call, search.hpp) only they compete, each candidate with the
// slower of its two jobs' figures (a vector collective's in each count
// pattern, then its worst pattern: pattern_figures.hpp), else only its
// final and crossover rows where it has them (a pruned row's figure is a
// cheap screening one); check rows test the profile and never shape it; a
// candidate with a failed row in a shape (it crashed or failed there) is
// left out of that shape altogether. The picks of a bucket's sizes are
// then made together, as one segmentation of its sizes (segmentation.hpp):
// a switch between candidates only where it saves more than the noise, the
// MPI library's own call wherever it is within the noise of the fastest.
// Each shape is tuned on its own: the rules of one (collective, transport)
// have, for each measured node count, one communicator-size bucket per
// measured np of that node count: it holds from that np up to the next
// measured np minus 1; the smallest np's bucket starts at the node count,
// so at 1 on one node (a profile tuned from 2 ranks up is the best guess
// for 1 too, and a 1-rank call is trivial for every algorithm), and the
// largest np's bucket ends at max. In a bucket,
// each measured size's pick holds from that size up to the next measured
// size; the first range starts at 0 and the last ends at max. Neighbouring
// ranges with the same pick (algorithm and parameter values) are merged;
// a merged range keeps the median of its first measured size. A boundary
// between two winners lies anywhere between their measured sizes as far
// as the measurements tell; it is put at the readable size there
// (readable_boundary), not at the odd size a bisection measured. Where
// no rank knows a call's size alone, a bucket may get one rule for every
// size instead (one_rule.hpp). Each rule records fallbacks after its
// winner (fallbacks_of), those of the first measured size of its range.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "cct/profile.hpp"
#include "cct/registry.hpp"
#include "tuner/results_csv.hpp"

namespace cct::tuner {

struct Winner {
  cct_collective collective = CCT_BARRIER;
  std::string transport;
  int nodes = 1;
  int np = 0;
  int64_t bytes = 0;
  std::string algorithm;
  std::map<std::string, int64_t> params;  // every parameter, by name
  std::string choice;                     // with its parameters, as CCT_FORCE takes it
  bool default_params = false;            // the algorithm's default values, all of them
  double min_s = 0;                       // the fastest repetition
  double median_s = 0;
  bool library = false;  // the collective library's own call (CCT_CAP_LIBRARY)
  // For a pick (segmentation.hpp): how much slower the best other
  // candidate was at its size, a fraction of its figure (a range's
  // SizeRule::margin is their geometric mean), and the noise of the
  // figures there (tie_margin).
  std::optional<double> margin;
  double noise = 0;
  // For a candidate confirmed in two jobs (fresh processes): how far apart
  // their figures lie, the slower over the faster less 1 (0: one job).
  double jobs_apart = 0;
  // For a point group's winner: what its rule falls back to where it cannot
  // run a call (fallbacks_of).
  std::vector<Fallback> fallbacks;
};

struct Winners {
  // One per point group, ordered by collective, transport, nodes, np, bytes.
  std::vector<Winner> best;
  // Rows left out, one line per cause: an unknown collective or algorithm,
  // or parameters the registered algorithm does not accept (the results
  // were measured with plugins that have changed since).
  std::vector<std::string> ignored;
  // Buckets given one rule for every size (one_rule.hpp), one line each.
  std::vector<std::string> one_rule;
  // Per point group, in best's order: the rows that competed for it, each
  // with its figure (the cost model's samples, tuner/predict.hpp).
  std::vector<std::vector<Winner>> contenders;
};

// One candidate of a point group, as the choice of its winner sees it.
struct Contender {
  double median_s = 0;
  double min_s = 0;
  std::string_view algorithm;
  bool library = false;         // the collective library's own call (CCT_CAP_LIBRARY)
  bool previous = false;        // the previous size's winner (algorithm and values)
  bool default_params = false;  // the algorithm's default parameter values
};

// How far above the fastest median a contender still counts as tied with
// it: the noise of the fastest's own figures, how far its median lies above
// its fastest repetition, but at least 5% and at most 10%, so that a real
// win of more than 10% is never given away for stability.
double tie_margin(const Contender& fastest);

// w as one of choose_winner's contenders; `previous`: the one to keep
// where it is within the noise of the fastest (a variant's rules keep the
// reference's winner so: variant_rules.hpp).
Contender as_contender(const Winner& w, bool previous);

// The index of the winner among contenders (not empty). The fastest is the
// lowest median (the earlier on a tie). Among those tied with it
// (tie_margin), in this order: the library's own call (a candidate replaces
// the library only where it is faster beyond the noise: do no harm); the
// previous size's winner (no needless rule boundaries); the fastest's
// algorithm with its default parameters (values that differ only in noise
// should not flip between runs). Else the fastest.
std::size_t choose_winner(std::span<const Contender> contenders);

// Where a rule starting at measured size `hi` begins when the rule before
// it was measured at `lo` (lo < hi): the size in (lo, hi] with the fewest
// significant bits, the largest such: 1M, 1536k, 3M rather than 1763487.
int64_t readable_boundary(int64_t lo, int64_t hi);

// A winner's fallbacks among the rows measured at its size (the winner's
// among them): the fastest of the other kind (the best algorithm where
// the library won, the library where an algorithm won), so that a call
// the winner cannot run (8-bit sums on the library, a program without MPI,
// a capability missing) takes the best measured alternative rather than
// the built-in default; then the fastest algorithm named neither as the
// winner nor as that first fallback. The library's own call counts for
// every kind of program: the MPI interposer hands it the program's call.
std::vector<Fallback> fallbacks_of(const Winner& winner, std::span<const Winner* const> rows);

// row as a Winner, or why the registry does not accept it (an unknown
// collective or algorithm, parameters it does not declare or allow).
std::string read_winner(const ResultRow& row, const Registry& registry, Winner* out);

// The winner of every point group of rows whose algorithm registry knows.
Winners pick_winners(const std::vector<ResultRow>& rows, const Registry& registry);

// What a call whose size no rank knows pays to agree on it, per shape
// (transport, nodes, np): the measured figure of the built-in default
// allreduce of 8 bytes (Runtime::agreed_key's sum of one uint64): its
// confirmation where it has one (of two jobs', the slower), else its full
// timing, else its screening figure.
using AgreementShape = std::tuple<std::string, int, int>;
std::map<AgreementShape, double> agreements(const std::vector<ResultRow>& rows);

// The rules of a profile from winners (ordered as pick_winners orders them).
std::map<cct_collective, TransportRules> build_rules(const std::vector<Winner>& winners);

// A table of the rules for people: collective, transport, np range (with
// the nodes where more than 1: "4-7 (2 nodes)"), size range,
// algorithm(params), median in microseconds, the margin of its win ("+23%",
// "+2% tie" where below the noise), the fallbacks; one line per size rule.
std::string rules_table(const std::map<cct_collective, TransportRules>& rules,
                        const Registry& registry);

// "the MPI library's own call (mpi) kept in 9 of 41 size ranges\n" where
// the library won some, else "": where the profile leaves the library be.
// The library's call is the algorithm that needs CCT_CAP_LIBRARY.
std::string library_kept(const std::map<cct_collective, TransportRules>& rules,
                         const Registry& registry);

}  // namespace cct::tuner
