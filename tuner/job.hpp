// ccautotune tuner: one job, the search of a space on every rank of a
// communicator. Its ranks enumerate the same points, run the same search
// (search.hpp) on the same figures, and rank 0 writes the rows and the
// progress.
#pragma once

#include <map>
#include <string>

#include "cct/communicator.hpp"
#include "cct/registry.hpp"
#include "tuner/job_progress.hpp"
#include "tuner/options.hpp"
#include "tuner/plan_space.hpp"
#include "tuner/results_csv.hpp"

namespace cct::tuner {

// Searches the space collective by collective, skipping the points of
// `known` (rows of earlier runs by key) and every point of a candidate that
// failed in this shape; rank 0 appends each measured row to opts.results.
// Collective over comm. Stops early, with a note, once the measured time
// passes opts.time_budget_s. With `progress`, notes what runs in it, so
// that the launcher can name the culprit if the job dies.
void measure_space(const Registry& registry, Communicator& comm, const Space& space,
                   const Options& opts, const std::map<std::string, ResultRow>& known,
                   JobProgress* progress = nullptr);

}  // namespace cct::tuner
