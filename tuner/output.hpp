// ccautotune tuner: where a run's measurements and profile go.
#pragma once

#include <map>
#include <string>

#include "cct/profile.hpp"
#include "cct/registry.hpp"
#include "tuner/options.hpp"
#include "tuner/out_lock.hpp"
#include "tuner/predict.hpp"
#include "tuner/results_csv.hpp"

namespace cct::tuner {

// A run's results file, opened: the rows of earlier runs by key (with
// --resume), and the lock on its directory, held as long as this lives.
struct OpenedResults {
  OutLock lock;
  std::map<std::string, ResultRow> known;
};

// Sets opts.out (default: where the runtime looks) and opts.results
// (<out>/<fingerprint>.csv), creates and locks the directory, and reads the
// rows of earlier runs with --resume. Throws UsageError when another run
// holds the directory, or the results file exists and --resume was not
// given.
OpenedResults open_results(Options& opts, const std::string& fingerprint);

// The profile of every row of the results file, with its accuracy at the
// off-grid checks, saved as <out>/<fingerprint>.yaml, loaded back with the
// registry as a check, and shown. With a plan, the rules of the sizes it
// names that were not measured are predicted (predict.hpp) and the cost
// model's check is shown. Without a single usable row nothing is written,
// so a failed run never replaces an earlier profile with an empty one;
// returns whether one was written.
// A point the outside check refuted (<fingerprint>.outside beside the
// results: outside_figures.hpp) is given back to the library first.
bool write_profile(const Registry& registry, const MachineInfo& machine, const Options& opts,
                   const PredictionPlan* plan = nullptr);

// The profile written beside opts.results made again from the results
// (after an outside check), with its machine and its run's settings as
// they were and `outside` (what the check found) as its tuning's
// `outside`. Throws cct::Error where that profile cannot be read.
bool rewrite_profile(const Registry& registry, const Options& opts, const PredictionPlan* plan,
                     const std::string& outside);

}  // namespace cct::tuner
