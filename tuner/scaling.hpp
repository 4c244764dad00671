// ccautotune tuner: how a candidate's measured figure carries to a
// communicator size it was not measured at, by the cost model
// (tuner/cost_model.hpp) and the cost shapes of its calls there and here
// (tuner/cost_shape.hpp). The predicted rules (tuner/predict.hpp) and the
// shortlist of a job (tuner/shortlist.hpp) both scale figures so.
#pragma once

#include <functional>
#include <map>
#include <optional>

#include "cct/registry.hpp"
#include "tuner/cost_model.hpp"
#include "tuner/cost_shape.hpp"
#include "tuner/winners.hpp"

namespace cct::tuner {

// The shape of a communicator of np ranks over `nodes` nodes on the
// platform tuned (job_shape on machines; flat on a simulated fabric).
using ShapeOf = std::function<ShapeComm(int nodes, int np)>;

// Whether the algorithm's declared limits let it run on np ranks.
bool fits(const AlgorithmEntry& a, int np);

// Cost questions about candidates at communicator sizes, each shape built
// once.
class Coster {
 public:
  Coster(const Registry& registry, ShapeOf shape) : registry_(registry), shape_(std::move(shape)) {}

  // The cost of w's call at np ranks over `nodes` nodes with the span
  // kinds of that shape and w's figure, or nullopt where its algorithm
  // states none, cannot say, or cannot run there.
  std::optional<CostSample> at(const Winner& w, int nodes, int np);
  // The same on the shape w was measured on.
  std::optional<CostSample> at(const Winner& w) { return at(w, w.nodes, w.np); }

 private:
  const ShapeComm& shape(int nodes, int np);

  const Registry& registry_;
  ShapeOf shape_;
  // By (nodes, np); map nodes stay put: shape().raw() points into them.
  std::map<std::pair<int, int>, ShapeComm> shapes_;
};

// A candidate's figure at np ranks over `nodes` nodes from its figure
// `at` measured on another shape M, and where there is one (`below`) on
// another measured shape of its series (predict.hpp). With
// both, along the line through the two in modelled time, so that how the
// candidate grew between them beyond the model (contention the model does
// not see) carries on; with one, by the ratio of modelled times. Nullopt
// where the model cannot scale it (no cost shape, cannot run at np).
std::optional<double> scaled_figure(const Winner& at, const Winner* below, int nodes, int np,
                                    const CostModel& model, Coster& coster);

}  // namespace cct::tuner
