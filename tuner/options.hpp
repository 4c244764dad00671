// ccautotune's command line: the options of a run and their parsing.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cct/registry.hpp"
#include "tuner/measure.hpp"
#include "tuner/noise.hpp"
#include "tuner/plan_space.hpp"
#include "tuner/search.hpp"

namespace cct::tuner {

// A communicator shape a short job confirms (shortlist.hpp, "A confirming
// job"): the nodes its ranks span, and its ranks.
struct ConfirmedShape {
  int nodes = 1;
  int np = 0;
  auto operator<=>(const ConfirmedShape&) const = default;
};

struct Options {
  SpaceFilter filter;
  MeasureOptions measure;
  SearchOptions search{.other_root = true};  // --roots last unless told
  // --datatypes as given; search.datatypes holds them as element types.
  std::vector<std::string> datatype_names{"float", "double"};
  std::vector<int> nps;
  // Beyond the two smallest nps, the candidates per size the cost model
  // predicts fastest, which a job measures (shortlist.hpp); 0: all.
  int shortlist = 2;
  // Whether jobs are shortlisted (and predicted sizes confirmed): not with
  // --exhaustive or --shortlist 0.
  bool shortlists() const { return !search.exhaustive && shortlist > 0; }
  // Rank counts whose rules the cost model predicts from the measured ones
  // (predict.hpp); those also in nps are measured. Empty: on a machine
  // every doubling size of the node (default_sizes.hpp), on a simulated
  // fabric none.
  std::vector<int> predict_nps;
  // The shapes of predicted sizes a short job confirms (default_sizes.hpp,
  // confirmed_sizes), set by the run from its measured sizes (on one node
  // nps, under mpirun the ranks per node of each node count) and
  // predict_nps where it shortlists; not an option.
  std::vector<ConfirmedShape> confirm_shapes;
  bool confirms(int nodes, int np) const {
    return std::ranges::find(confirm_shapes, ConfirmedShape{nodes, np}) != confirm_shapes.end();
  }
  std::string fabric;   // a simulated platform's config ("" : none given)
  std::string out;      // default: cct::default_profile_out_dir()
  std::string results;  // <out>/<fingerprint>.csv
  // --from-results: another machine's results to build this machine's
  // profile from, measuring nothing (from_results.hpp); and, once read,
  // the settings they were measured with (their profile's), with where
  // they came from: the profile's `tuning` then.
  std::string from_results;
  std::map<std::string, std::string> results_tuning;
  bool resume = false;
  // --plan: measure the two smallest nps, then say the planned time of
  // the others (plan_time.hpp) and stop.
  bool plan = false;
  bool single_job = false;  // --single-job: no second job (search.hpp, step 3)
  bool verbose = false;
  bool report = false;       // also write <out>/<fingerprint>.html (report_html.hpp)
  std::string command_line;  // as given, for the report to say how it was made
  double timeout_s = 3600;
  double hang_timeout_s = 60;  // no call started on any rank for this long: a rank hangs
  // --hang-timeout as a job applies it: a call may take many times a
  // point's budget when ranks outnumber cores.
  double hang_limit_s() const { return std::max(hang_timeout_s, 10 * measure.budget_s); }
  double time_budget_s = 0;  // 0: none
  bool max_bytes_given = false;
  // Under mpirun: the shapes to tune (empty: the defaults).
  std::vector<int> nodes;
  std::vector<int> ranks_per_node;
  // Under mpirun, node counts whose rules the cost model predicts from the
  // measured node counts with as many ranks on each node (predict.hpp).
  // Empty: twice the largest measured, doubling up to 16 times it.
  std::vector<int> predict_nodes;
  // --launcher mpirun and what it passes to mpirun.
  bool launch_mpirun = false;
  std::string hostfile;
  std::string mpirun_args;
  int outside_runs = 7;  // --outside-runs: of each side of the outside check (outside_check.hpp)
  // Not flags: the noise probes around the measurements (noise.hpp), for
  // the report and the profile; absent on a simulated platform.
  std::optional<std::pair<Noise, Noise>> noise;
};

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Options from the command line, or none when it asked for --help or
// --version, answered on stdout. Throws UsageError naming the flag and what
// is wrong with its value.
std::optional<Options> parse_args(int argc, char** argv);

// --transports and --algorithms name what the plugins provide, or
// UsageError says which does not.
void check_names(const Registry& registry, const SpaceFilter& filter);

}  // namespace cct::tuner
