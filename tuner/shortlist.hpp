// ccautotune tuner: the candidates a job need not measure, because the cost
// model says they lose (docs/cost_model.md, "The shortlist").
//
// Before a job of np ranks on one node (or over N nodes: then from the
// sizes measured over N nodes, fewer ranks on each), where its transport
// was measured at two or more smaller communicator sizes, a model fitted on those figures
// (tuner/cost_model.hpp) scales every candidate's figure to np from the
// largest size below np it was measured at (tuner/scaling.hpp; the size
// before that gives the slope): the nearest measured size M, or, for a
// candidate the shortlist of M's job left out, where it was measured last
// (without that, a size after a shortlisted one measured every candidate
// left out there: on the simulator np 32 after 16 took 19.3 s instead of
// 4.5). At each message size measured at M the job then measures only:
// - the `keep` fastest so predicted, and M's pick, so that the profile's
//   rules stay continuous across sizes; of those, not
//   - one the model puts far behind the fastest predicted: further than
//     the square of the farthest it put a size's measured fastest behind
//     its own pick where it was checked (M predicted from the sizes below:
//     predict.hpp, checked_lag, on one node only), and at least
//     kFarBehindFloor times.
//     Squared, since the job is a size further out than the check: on the
//     simulator (tree:4, np 16 from 4 and 8) the check said 1.6x, and at
//     np 16 the model put a size's fastest 2.1x behind. Not M's pick: it
//     won at M, and only a measurement says it loses at np;
//   - another parameter value of the algorithm of a faster one kept, tied
//     with it: last measured at the same size and within kTie there, at
//     the size before where both were measured there, and as predicted at
//     np. Either is within kTie of the other, the accuracy a pick is held
//     to, so one is measured. Not two algorithms: on the simulator
//     rabenseifner and recursive_doubling allreduce of 1 KiB were within
//     1.3% at np 4 and 8, and 17% apart at 16;
// - the MPI library's own call: a candidate replaces it only where it is
//   measured beside it;
// - every candidate the model cannot scale (it states no cost shape, or
//   was not measured below np).
// The job's own search then picks among measured figures only: the
// measurement of the shortlist is the check of the prediction. The two
// smallest sizes are therefore measured whole; so is every size with
// --exhaustive.
//
// Likewise a collective's variants (a reduction's element types, a rooted
// collective's roots; search.hpp, steps 6 and 7): where they were timed at
// the smaller sizes and got no rules of their own there, the job does not
// time them again. What each variant changes (what adding an element
// costs, which data crosses which link first) does not come with more
// ranks where two sizes showed nothing.
//
// A confirming job is one of a size the run predicts rather than measures
// (default_sizes.hpp: on a big node the sizes between those 4x apart),
// run after the measured ones: the model's one fastest, M's pick, the pick
// of the measured size above and the library's call are measured at each
// message size, and the fastest decides, so that a prediction stands only
// where a measurement beside the alternatives bears it out (on the
// simulator the np-8 picks predicted from 4, 16 and 64 were within 5% of
// the fastest at 79 of 95 sizes). No crossovers, checks or variants: its
// rules stay between those of the measured sizes around it; nor a second
// job (search.hpp, step 3), which on the 128-core plan (docs/cost_model.md)
// added a fifth to a quarter to these jobs, 61-76 s, for sizes that would
// otherwise only be predicted: its own confirmation step decides.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "cct/registry.hpp"
#include "tuner/measure.hpp"
#include "tuner/plan_space.hpp"
#include "tuner/results_csv.hpp"
#include "tuner/scaling.hpp"
#include "tuner/variant_rules.hpp"

namespace cct::tuner {

// Two candidates within this fraction of each other are tied: a pick within
// 3% of the fastest is what the search is held to (docs/cost_model.md,
// "Search cost and accuracy").
constexpr double kTie = 0.03;
// The far-behind rule leaves out only what the model puts at least this
// many times behind the fastest, however well it did where checked.
constexpr double kFarBehindFloor = 2;

// Why the shortlist leaves a candidate out at a message size.
enum class Dropped {
  kSlower,     // not among the `keep` fastest predicted, nor M's pick
  kFarBehind,  // predicted over Shortlist::far_behind() times the fastest
  kTied,       // tied with a faster value of its algorithm measured
};

struct Shortlist {
  int nodes = 1;         // the nodes the job's ranks span
  int np = 0;            // the job's size
  int from_np = 0;       // M, the measured size the figures are scaled from
  std::size_t keep = 0;  // the fastest predicted kept at each size (--shortlist)
  // A confirming job's (see above): keep 1, no crossovers, checks or variants.
  bool confirming = false;
  // How far behind its own pick the model, checked on the sizes below,
  // put a size's fastest (predict.hpp, checked_lag); 0 where it could not
  // be checked.
  double lag = 0;
  // (collective, transport, message size) -> the choices (as
  // CCT_FORCE takes them) not measured there, and why. A size not listed
  // is measured whole.
  std::map<std::tuple<cct_collective, std::string, int64_t>, std::map<std::string, Dropped>>
      dropped;
  // The (candidate, size) points it keeps, and the time their calls will
  // take at np: each one's figure scaled to np (as it was where the model
  // cannot scale it) times its warm-up and its repetitions where it was
  // last measured, within what `timing` allows a point. What the job's time is
  // planned from (plan_time.hpp).
  std::size_t kept = 0;
  double kept_timed_s = 0;
  // The (collective, variation) pairs whose variants were timed below np
  // and got no rules of their own: not timed again.
  std::set<std::pair<cct_collective, Variation>> unvaried;
  // What from_np's rows of the calls this job will not make again took
  // (of the variants above; a confirming job's also every variant,
  // crossover and check): their figures x their repetitions (plan_time.hpp).
  double left_out_timed_s = 0;

  // The far-behind rule's factor: lag squared, at least kFarBehindFloor;
  // 0 (no such rule) where the model could not be checked.
  double far_behind() const { return lag > 0 ? std::max(lag * lag, kFarBehindFloor) : 0; }
  // Why the job does not measure p; nullopt where it does.
  std::optional<Dropped> why_dropped(const Point& p) const;
  bool times_variants(cct_collective c, Variation v) const {
    return !confirming && !unvaried.contains({c, v});
  }
};

// The shortlist of a job of np ranks over `nodes` nodes on `transport` from
// the rows measured so far (of those nodes, below np); empty (drops
// nothing) where fewer than two smaller sizes were measured on them.
// `timing`: the job's timing method, which bounds what a point takes;
// `sizes`: the job's sizes (largest_size), beyond which nothing is kept.
Shortlist make_shortlist(const std::vector<ResultRow>& rows, const Registry& registry,
                         const ShapeOf& shape, const std::string& transport, int nodes, int np,
                         std::size_t keep, const MeasureOptions& timing, const SpaceFilter& sizes,
                         bool confirming = false);

// Removes the points the shortlist drops from space; how many it removed,
// by why.
std::map<Dropped, std::size_t> apply_shortlist(const Shortlist& shortlist, Space& space);

// For people: what apply_shortlist removed from a space that held `total`
// points, and why: "687 of 816 points left out, by the cost model fitted
// below np=64 from the figures of np=16: 641 predicted slower than the 2
// fastest, 35 predicted over 2.3x behind the fastest (...), ...".
std::string describe_removed(const Shortlist& shortlist,
                             const std::map<Dropped, std::size_t>& removed, std::size_t total);

// For people, where unvaried is not empty: "not timed again in other element
// types or at another root, since they got no rules of their own below
// np=64: bcast (roots), allreduce (element types)".
std::string describe_unvaried(const Shortlist& shortlist);

// For people, of a confirming job: "a size predicted, confirmed by this
// job: at each message size the model's fastest measured beside the picks
// of np=4 and the measured size above and the library's call, without
// crossovers, checks, element types or roots, and no second job".
std::string describe_confirming(const Shortlist& shortlist);

// The shortlist as text, a line per dropped choice and per unvaried pair,
// and back: how rank 0 hands it to the ranks of an MPI job, and how a job
// keeps it for its second job (kept_shortlists.hpp), the plan's figures
// with it. read_shortlist throws cct::Error on text write_shortlist did
// not write.
std::string write_shortlist(const Shortlist& shortlist);
Shortlist read_shortlist(const std::string& text);

}  // namespace cct::tuner
