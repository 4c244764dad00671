#include "tuner/from_results.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>

#include "cct/machine_kind.hpp"
#include "cct/profile.hpp"
#include "cct/topology.hpp"
#include "tuner/cost_shape.hpp"
#include "tuner/default_sizes.hpp"
#include "tuner/machine.hpp"
#include "tuner/out_lock.hpp"
#include "tuner/output.hpp"

namespace fs = std::filesystem;

namespace cct::tuner {
namespace {

// The profile ccautotune wrote beside a results file (profile_beside):
// its machine and settings.
Profile profile_of(const std::string& results, const Registry& registry) {
  if (!fs::exists(results)) throw UsageError("--from-results: no file " + results);
  const std::string profile = profile_beside(results);
  if (!fs::exists(profile))
    throw UsageError("--from-results: no profile beside " + results + " (" + profile +
                     "), which says what machine its figures are of");
  return load_profile(profile, &registry, RuleProblems::kDisableRule);
}

// The communicator sizes measured on one node in rows.
std::set<int> measured_nps(const std::vector<ResultRow>& rows) {
  std::set<int> nps;
  for (const ResultRow& row : rows)
    if (row.nodes == 1) nps.insert(row.np);
  return nps;
}

}  // namespace

bool profile_from_results(const Registry& registry, Options opts) {
  const Profile theirs = profile_of(opts.from_results, registry);
  const MachineInfo& there = theirs.machine;
  const Topology here = Topology::discover();
  const std::vector<std::string> mine = here.fingerprints();
  if (std::ranges::find(mine, there.fingerprint) != mine.end())
    throw UsageError("--from-results: " + opts.from_results +
                     " holds this machine's own figures: ccautotune --resume rebuilds its profile");
  const std::optional<MachineDifference> differs = compare_machines(there.summary, here.summary());
  const std::string synthetic = synthetic_of(there.summary);
  if (!differs || synthetic.empty())
    throw UsageError("--from-results: " + opts.from_results + " is of a machine of another kind (" +
                     there.summary + "; this one: " + here.summary() +
                     "): only counts and cache sizes may differ");
  const Topology tuned = Topology::synthetic(synthetic);
  opts.results = opts.from_results;
  const std::set<int> measured = measured_nps(read_results(opts.results));
  if (measured.empty()) throw UsageError("--from-results: no one-node rows in " + opts.results);
  if (opts.out.empty()) opts.out = default_profile_out_dir();
  fs::create_directories(opts.out);
  const OutLock lock(opts.out);
  const std::string origin = opts.from_results + " (fingerprint " + there.fingerprint + ", " +
                             there.summary + "), differing in " +
                             (differs->text.empty() ? "nothing the summaries show" : differs->text);
  opts.results_tuning = theirs.tuning;
  opts.results_tuning["from_results"] = origin;
  std::cout << "ccautotune: " << here.summary() << ", fingerprint " << here.fingerprint()
            << "; from the results of " << origin
            << ": their rules as measured, this machine's other sizes predicted" << std::endl;
  const PredictionPlan plan{.shape =
                                [&](int nodes, int np) {
                                  // Shapes across nodes are theirs: only one-node sizes are
                                  // predicted here.
                                  return job_shape(
                                      nodes > 1 || measured.contains(np) ? tuned : here, nodes, np);
                                },
                            .nps = predicted_nps(opts.predict_nps, here.cores())};
  return write_profile(registry, describe_machine(here, *measured.rbegin()), opts, &plan);
}

}  // namespace cct::tuner
