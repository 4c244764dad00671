// ccautotune tuner: rules for communicator shapes that were not measured,
// predicted by the cost model (tuner/cost_model.hpp).
//
// Shapes are predicted along series: the communicators on one node by their
// size, and those spanning nodes with the same number of ranks on each
// node by their node count (tuned on 2 nodes x 4 ranks, predicted for 8
// nodes x 4). Per transport and series, the model is fitted from every
// competing figure of the measured shapes (Winners::contenders) and the
// cost shape of its call (tuner/cost_shape.hpp). A shape P that was not
// measured is predicted from the nearest measured one M of its series (the
// largest below P, else the smallest above): at each measured message
// size, each candidate's figure at M is
// scaled by the ratio of its modelled times at P and at M, so that what
// the model misses about a candidate (its constant costs, its
// implementation) cancels, and only how it scales with the communicator is
// modelled. The fastest so predicted wins; where M's winner states no cost
// (the MPI library's own call), it is kept, since nothing says how it
// scales and a candidate replaces the library only where that is shown.
//
// Checked where it can be: each measured shape is predicted from the one
// below it, with a model fitted on the shapes up to that one alone, and
// compared with what was measured there: the median relative error of the
// predicted times (RankBucket::predicted's error) and how often the
// predicted pick is within 5% of the measured best.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "cct/profile.hpp"
#include "cct/registry.hpp"
#include "tuner/cost_shape.hpp"
#include "tuner/scaling.hpp"
#include "tuner/winners.hpp"

namespace cct::tuner {

// What to predict and on what: the shape of a communicator on this
// platform (job_shape on machines; flat on a simulated fabric), and the
// shapes wanted. Those that were measured are left alone.
struct PredictionPlan {
  ShapeOf shape;
  std::vector<int> nps;  // communicator sizes on one node
  // Node counts (2 or more), each with every number of ranks on each node
  // measured across nodes.
  std::vector<int> nodes;
};

struct Predictions {
  // One per (collective, transport, np, message size) predicted, ordered as
  // Winners::best orders its own; median_s the predicted figure.
  std::vector<Winner> winners;
  // By (collective, transport, nodes, np): what a bucket of predicted
  // rules says.
  std::map<std::tuple<cct_collective, std::string, int, int>, Prediction> buckets;
  // For people: per transport and series the model's coefficients, its
  // check, and the shapes predicted; one line each.
  std::string report;
};

Predictions predict(const Winners& measured, const Registry& registry, const PredictionPlan& plan);

// How far behind its own pick the model put the measured fastest, where it
// was checked (above) on transport's communicators on one node: the
// largest, over the checked points, of the measured fastest's predicted
// figure over the predicted fastest's (1: it always picked the fastest).
// A candidate the model puts further behind its pick than this has not
// been seen to win. Nullopt where nothing could be checked (fewer than
// two sizes measured).
std::optional<double> checked_lag(const Winners& measured, const Registry& registry,
                                  const ShapeOf& shape, const std::string& transport);

// The winners and the predicted ones in one list, ordered as build_rules
// wants them, and the rules built from it with the predicted buckets
// marked (RankBucket::predicted in place of measured_np).
std::map<cct_collective, TransportRules> rules_with_predictions(const std::vector<Winner>& best,
                                                                const Predictions& predicted);

}  // namespace cct::tuner
