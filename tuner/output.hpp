// ccautotune tuner: where a run's measurements and profile go.
#pragma once

#include <map>
#include <string>

#include "cct/profile.hpp"
#include "cct/registry.hpp"
#include "tuner/options.hpp"
#include "tuner/results_csv.hpp"

namespace cct::tuner {

// Sets opts.out (default: where the runtime looks) and opts.results
// (<out>/<fingerprint>.csv), creates the directory, and returns the rows of
// earlier runs by key with --resume. Throws UsageError when the results
// file exists and --resume was not given.
std::map<std::string, ResultRow> open_results(Options& opts, const std::string& fingerprint);

// The profile of every row of the results file, with its accuracy at the
// off-grid checks, saved as <out>/<fingerprint>.yaml, loaded back with the
// registry as a check, and shown. Without a single usable row nothing is
// written, so a failed run never replaces an earlier profile with an empty
// one; returns whether one was written.
bool write_profile(const Registry& registry, const MachineInfo& machine, const Options& opts);

}  // namespace cct::tuner
