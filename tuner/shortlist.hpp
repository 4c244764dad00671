// ccautotune tuner: the candidates a job need not measure, because the cost
// model says they lose (docs/cost_model.md, "The shortlist").
//
// Before a job of np ranks on one node, where its transport was measured at
// two or more smaller communicator sizes, a model fitted on those figures
// (tuner/cost_model.hpp) scales every candidate's figure from the nearest
// measured size M below np (tuner/scaling.hpp; the size below M gives the
// slope), at each message size measured at M. At that size the job then
// measures only:
// - the `keep` fastest so predicted;
// - M's pick, so that the profile's rules stay continuous across sizes;
// - the MPI library's own call: a candidate replaces it only where it is
//   measured beside it;
// - every candidate the model cannot scale (it states no cost shape, or
//   was not measured at M).
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
#pragma once

#include <cstddef>
#include <map>
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

struct Shortlist {
  int np = 0;       // the job's size
  int from_np = 0;  // M, the measured size the figures are scaled from
  // (collective, transport, message size) -> the choices (as
  // CCT_FORCE takes them) not measured there. A size not listed is
  // measured whole.
  std::map<std::tuple<cct_collective, std::string, int64_t>, std::set<std::string>> dropped;
  // The (candidate, size) points of from_np it keeps, and the time their
  // calls will take at np: each one's figure scaled to np (as it was where
  // the model cannot scale it) times its warm-up and its repetitions at
  // from_np, within what `timing` allows a point. What the job's time is
  // planned from (plan_time.hpp).
  std::size_t kept = 0;
  double kept_timed_s = 0;
  // The (collective, variation) pairs whose variants were timed below np
  // and got no rules of their own: not timed again.
  std::set<std::pair<cct_collective, Variation>> unvaried;

  bool drops(const Point& p) const;
  bool times_variants(cct_collective c, Variation v) const { return !unvaried.contains({c, v}); }
};

// The shortlist of a job of np ranks on `transport` from the rows measured
// so far (those at np itself and across nodes are not used); empty (drops
// nothing) where fewer than two smaller sizes were measured on one node.
// `timing`: the job's timing method, which bounds what a point takes;
// `sizes`: the job's sizes (largest_size), beyond which nothing is kept.
Shortlist make_shortlist(const std::vector<ResultRow>& rows, const Registry& registry,
                         const ShapeOf& shape, const std::string& transport, int np,
                         std::size_t keep, const MeasureOptions& timing, const SpaceFilter& sizes);

// Removes the points the shortlist drops from space; how many it removed.
std::size_t apply_shortlist(const Shortlist& shortlist, Space& space);

// The shortlist as text, a line per dropped choice and per unvaried pair,
// and back: how rank 0
// hands it to the ranks of an MPI job. read_shortlist throws cct::Error on
// text write_shortlist did not write.
std::string write_shortlist(const Shortlist& shortlist);
Shortlist read_shortlist(const std::string& text);

}  // namespace cct::tuner
