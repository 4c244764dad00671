// ccautotune tuner: one job, the search of a space on every rank of a
// communicator. Its ranks enumerate the same points, run the same search
// (search.hpp) on the same figures, and rank 0 writes the rows and the
// progress.
#pragma once

#include <map>
#include <string>

#include "cct/communicator.hpp"
#include "cct/registry.hpp"
#include "tuner/options.hpp"
#include "tuner/plan_space.hpp"
#include "tuner/results_csv.hpp"

namespace cct::tuner {

// Searches the space collective by collective, skipping the points of
// `known` (rows of earlier runs by key); rank 0 appends each measured row
// to opts.results. Collective over comm. Stops early, with a note, once
// the measured time passes opts.time_budget_s.
void measure_space(const Registry& registry, Communicator& comm, const Space& space,
                   const Options& opts, const std::map<std::string, ResultRow>& known);

}  // namespace cct::tuner
