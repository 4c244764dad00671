// ccautotune: searches every applicable point on this machine, appends each
// measurement to the raw results file, then writes the tuned profile from
// the winners.
//
// One local job per (transport, np) (job.hpp); on a simulated platform one
// simulated job per np; under mpirun, one job per shape of the cluster
// (cluster.hpp). The profile is built from every row of the results file
// (with --resume, also those of earlier runs), saved as
// <out>/<fingerprint>.yaml, loaded back with the registry as a check, and
// its accuracy at off-grid sizes is reported (output.hpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <string>

#include "cct/error.hpp"
#include "cct/launcher.hpp"
#include "cct/registry.hpp"
#include "cct/simulate.hpp"
#include "cct/topology.hpp"
#include "cct/units.hpp"
#include "tuner/buffer_memory.hpp"
#include "tuner/cluster.hpp"
#include "tuner/default_sizes.hpp"
#include "tuner/device_job.hpp"
#include "tuner/from_results.hpp"
#include "tuner/job.hpp"
#include "tuner/kept_shortlists.hpp"
#include "tuner/machine.hpp"
#include "tuner/options.hpp"
#include "tuner/output.hpp"
#include "tuner/plan_time.hpp"
#include "tuner/shortlist.hpp"

namespace {

using namespace cct::tuner;

// One job: np ranks over the transport, bound as the topology suggests. A
// candidate that crashes or fails a rank is recorded as failed and the job
// starts again past it (its measured points are in the results file).
bool run_job(const cct::Registry& registry, const cct::Topology& topo,
             const cct::TransportEntry& transport, int np, const Options& opts,
             std::map<std::string, ResultRow> known, const Shortlist* shortlist) {
  JobProgress progress(np);
  const double hang_s = opts.hang_limit_s();
  const cct::LaunchOptions launch_options{
      .ranks = np, .timeout_s = opts.timeout_s, .watchdog = [&] {
        return progress.stalled(std::chrono::duration<double>(hang_s));
      }};
  for (int launch = 0;; ++launch) {
    progress.clear();
    const cct::LaunchResult result = cct::launch_local(launch_options, [&](cct::Bootstrap& boot) {
      int pu = topo.pu_for_rank(boot.rank(), boot.size());
      if (!topo.bind_to_pu(pu)) pu = -1;
      if (is_device_transport(transport)) {
        measure_on_device(registry, transport, boot, topo, pu, {}, opts, known, &progress);
        return 0;
      }
      auto instance = std::make_shared<cct::TransportInstance>(transport, boot);
      cct::Communicator comm(boot, instance, topo, pu);
      measure_space(registry, comm, enumerate(registry, comm, opts.filter), opts, known, &progress,
                    nullptr, shortlist);
      return 0;
    });
    if (result.ok) return true;
    if (launch < kMostRelaunches && record_failure(progress, result.error, opts, known)) {
      for (const ResultRow& row : read_results(opts.results)) known.try_emplace(row.key(), row);
      continue;
    }
    std::cerr << "ccautotune: " << transport.desc->name << " at np=" << np << ": " << result.error
              << "\n";
    return false;
  }
}

// One job on a simulated platform: np fibers in virtual time.
bool run_simulated_job(const cct::Registry& registry, const cct::TransportEntry& transport, int np,
                       const Options& opts, const std::map<std::string, ResultRow>& known,
                       const Shortlist* shortlist) {
  const cct::LaunchResult result = cct::launch_simulated(
      transport, {.ranks = np, .config = opts.fabric}, [&](cct::Bootstrap& boot) {
        std::shared_ptr<cct::Communicator> comm = cct::simulated_communicator(transport, boot);
        measure_space(registry, *comm, enumerate(registry, *comm, opts.filter), opts, known,
                      nullptr, nullptr, shortlist);
        return 0;
      });
  if (!result.ok)
    std::cerr << "ccautotune: " << transport.desc->name << " at np=" << np << ": " << result.error
              << "\n";
  return result.ok;
}

// Whether the transport can serve ranks launched here (its probe, which is
// local); says why not. The mpi transport, for one, serves MPI programs only.
bool serves_local_ranks(const cct::TransportEntry& transport, int np) {
  cct_bootstrap boot{.struct_size = sizeof(cct_bootstrap),
                     .abi_version = CCT_ABI_VERSION,
                     .rank = 0,
                     .size = np,
                     .node = 0,
                     .nodes = 1,
                     .job_key = "cct-probe"};
  cct_error err{};
  if (transport.desc->probe(&boot, &err) == CCT_OK) return true;
  std::cout << "ccautotune: transport " << transport.desc->name << " skipped: " << err.message
            << "\n";
  return false;
}

// What a run keeps of its jobs beside its results, for its second jobs
// and the runs that resume it: their times and their shortlists.
struct KeptJobs {
  JobTimes& times;
  KeptShortlists& shortlists;
};

// One job of np ranks on transport (`job`, given its shortlist), with its
// planned time said before it runs (plan_time.hpp) and its time after.
bool planned_job(const cct::Registry& registry, const Options& opts, const ShapeOf& shape,
                 const cct::TransportEntry& transport, int np, KeptJobs kept,
                 const std::function<bool(const Shortlist*)>& job) {
  const std::vector<ResultRow> rows_before = read_results(opts.results);
  const std::optional<Shortlist> shortlist =
      job_shortlist(registry, opts, rows_before, shape, transport, 1, np, kept.shortlists);
  TimedJob timed(kept.times, {transport.desc->name, 1, np}, shortlist ? &*shortlist : nullptr,
                 rows_before.size());
  const bool ok = job(shortlist ? &*shortlist : nullptr);
  timed.end(read_results(opts.results));
  return ok;
}

// The sizes a run measures whole, whatever the shortlist: the two smallest.
std::vector<int> measured_whole(std::vector<int> nps) {
  std::sort(nps.begin(), nps.end());
  nps.erase(std::unique(nps.begin(), nps.end()), nps.end());
  if (nps.size() > 2) nps.resize(2);
  return nps;
}

// The sizes of a run's first jobs: those measured, then those confirmed
// (whose jobs weigh the picks of the measured sizes on both sides); the
// second jobs time the measured ones again only.
std::vector<int> job_sizes(const Options& opts, bool second) {
  std::vector<int> sizes = opts.nps;
  if (!second)
    for (const ConfirmedShape& shape : opts.confirm_shapes) sizes.push_back(shape.np);
  return sizes;
}

// The transports a run on this machine measures.
std::vector<const cct::TransportEntry*> local_transports(const cct::Registry& registry,
                                                         const Options& opts) {
  std::vector<const cct::TransportEntry*> out;
  for (const cct::TransportEntry& transport : registry.transports())
    if (selected(opts.filter.transports, transport.desc->name) && !cct::is_simulated(transport))
      out.push_back(&transport);
  return out;
}

// --plan, once the sizes measured whole were: the planned time of every
// other size's jobs on each transport that measured them (first: the first
// job's pass, second: the second job's), each from the shortlist its job
// would measure now (kept_or_made, from `shortlists`). False where a size
// could not be planned.
bool say_plan(const cct::Registry& registry, const cct::Topology& topo, const Options& opts,
              const KeptShortlists& shortlists, const JobTimes& first, const JobTimes& second) {
  const ShapeOf shape = [&](int nodes, int np) { return job_shape(topo, nodes, np); };
  const std::vector<int> whole = measured_whole(opts.nps);
  const std::vector<ResultRow> rows = read_results(opts.results);
  double total_s = 0;
  bool planned = true;
  for (const cct::TransportEntry* transport : local_transports(registry, opts))
    for (int np : job_sizes(opts, false)) {
      const std::string name = transport->desc->name;
      if (std::find(whole.begin(), whole.end(), np) != whole.end()) continue;
      if (!first.timed(name)) {  // said only where the transport measured something
        if (std::any_of(rows.begin(), rows.end(),
                        [&](const auto& r) { return r.transport == name; })) {
          std::cout << "ccautotune: " << name << " np=" << np
                    << ": not planned (no time kept of the jobs below it)\n";
          planned = false;
        }
        continue;
      }
      const std::optional<Shortlist> shortlist =
          kept_or_made(registry, opts, rows, shape, *transport, 1, np, shortlists);
      const std::optional<double> one =
          shortlist ? first.planned_s(name, *shortlist) : std::nullopt;
      if (!one) {
        std::cout << "ccautotune: " << name << " np=" << np
                  << ": not planned (no shortlist: --exhaustive, --shortlist 0, or fewer than two "
                     "sizes measured below it)\n";
        planned = false;
        continue;
      }
      const double two = opts.single_job || shortlist->confirming
                             ? 0
                             : second.planned_s(name, *shortlist).value_or(0);
      std::cout << "ccautotune: " << describe_plan(name, *shortlist, *one + two) << "\n";
      if (shortlist->confirming)
        std::cout << "ccautotune: " << name << " np=" << np << ": "
                  << describe_confirming(*shortlist) << "\n";
      else if (!shortlist->unvaried.empty())
        std::cout << "ccautotune: " << name << " np=" << np << ": " << describe_unvaried(*shortlist)
                  << "\n";
      total_s += *one + two;
    }
  std::cout << "ccautotune: planned for the sizes not yet measured: " << std::lround(total_s)
            << " s in all; run again with --resume, without --plan, to measure them" << std::endl;
  return planned;
}

// One job per selected transport (simulated ones aside) and rank count.
bool run_jobs(const cct::Registry& registry, const cct::Topology& topo, const Options& opts,
              const std::map<std::string, ResultRow>& known, KeptJobs kept) {
  const ShapeOf shape = [&](int nodes, int np) { return job_shape(topo, nodes, np); };
  bool ok = true;
  for (const cct::TransportEntry* transport : local_transports(registry, opts))
    for (int np : job_sizes(opts, opts.search.reconfirm))
      if (serves_local_ranks(*transport, np))
        ok = planned_job(registry, opts, shape, *transport, np, kept,
                         [&](const Shortlist* shortlist) {
                           return run_job(registry, topo, *transport, np, opts, known, shortlist);
                         }) &&
             ok;
  return ok;
}

// The simulated transport among the selected ones, if any; it must be the
// only one, since its profile is keyed by its platform, not this machine.
const cct::TransportEntry* simulated_selection(const cct::Registry& registry, const Options& opts) {
  const cct::TransportEntry* simulated = nullptr;
  for (const std::string& name : opts.filter.transports)
    if (const cct::TransportEntry* t = registry.find_transport(name); cct::is_simulated(*t))
      simulated = t;
  if (simulated && opts.filter.transports.size() > 1)
    throw UsageError(std::string("--transports: ") + simulated->desc->name +
                     " simulates a platform of its own; tune it alone");
  if (!simulated && !opts.fabric.empty())
    throw UsageError("--fabric: the transports named simulate no platform");
  return simulated;
}

int run_simulated(const cct::Registry& registry, const cct::TransportEntry& transport,
                  Options opts) {
  cct::SimulatedPlatform platform;
  try {
    platform = cct::describe_simulated(transport, opts.fabric);
  } catch (const cct::Error& e) {
    throw UsageError(std::string("--fabric: ") + e.what());
  }
  if (opts.plan) throw UsageError("--plan: plans a run on this machine; a simulated one is cheap");
  if (opts.nps.empty()) opts.nps = {4, 16, 64};
  // Simulating a large alltoall on 64 DSPs moves gigabytes packet by packet.
  if (!opts.max_bytes_given) opts.filter.max_bytes = 64 << 10;
  opts.measure.warmup = 1;
  opts.measure.min_reps = opts.measure.max_reps = 1;
  const int max_np = *std::max_element(opts.nps.begin(), opts.nps.end());
  // Every rank is a fiber of this process, and they share one rank's
  // buffers (Measurer::simulated_set).
  check_buffer_memory(opts, max_np, 1, true);
  const OpenedResults results = open_results(opts, platform.fingerprint);
  const std::string name = opts.fabric.empty() ? "seed" : opts.fabric;
  std::cout << "ccautotune: " << transport.desc->name << " fabric " << name << ", fingerprint "
            << platform.fingerprint << "; results in " << opts.results << std::endl;
  bool ok = true;
  JobTimes times(true, opts.measure.warmup);
  keep_job_times(opts.results, opts.resume, {&times});
  KeptShortlists shortlists(opts.results, opts.resume);
  // The simulated DSPs share no caches: every shape is flat.
  const ShapeOf flat = [](int nodes, int np) { return ShapeComm(np, nodes, {}); };
  opts.confirm_shapes = confirmed_for(opts, 1, opts.nps, opts.predict_nps);
  for (int np : job_sizes(opts, false))
    ok = planned_job(registry, opts, flat, transport, np, {times, shortlists},
                     [&](const Shortlist* shortlist) {
                       return run_simulated_job(registry, transport, np, opts, results.known,
                                                shortlist);
                     }) &&
         ok;
  const cct::MachineInfo machine{.fingerprint = platform.fingerprint,
                                 .summary = std::string(transport.desc->name) + " fabric " + name,
                                 .ranks_per_node = max_np};
  const PredictionPlan plan{.shape = flat, .nps = opts.predict_nps};
  return write_profile(registry, machine, opts, &plan) && ok ? 0 : 1;
}

// The shapes across nodes are a run under mpirun's; here they would be
// left unused without a word.
void check_local_options(const Options& opts) {
  if (!opts.nodes.empty() || !opts.ranks_per_node.empty() || !opts.predict_nodes.empty())
    throw UsageError(
        "--nodes, --ranks-per-node and --predict-nodes shape a run across nodes: add --launcher "
        "mpirun (with --hostfile), or start ccautotune with mpirun");
}

int run(Options opts) {
  check_local_options(opts);
  cct::Registry registry;
  registry.load_default();
  for (const std::string& w : registry.warnings()) std::cerr << "ccautotune: " << w << "\n";
  if (registry.algorithms().empty()) {
    std::cerr << "ccautotune: no algorithm plugins found (" << registry.searched()
              << "); nothing to tune\n";
    return 1;
  }
  if (!opts.fabric.empty() && opts.filter.transports.empty())
    opts.filter.transports = {"rapidio_sim"};
  check_names(registry, opts.filter);
  if (!opts.from_results.empty()) return profile_from_results(registry, std::move(opts)) ? 0 : 1;
  if (const cct::TransportEntry* simulated = simulated_selection(registry, opts))
    return run_simulated(registry, *simulated, std::move(opts));
  const cct::Topology topo = cct::Topology::discover();
  if (opts.nps.empty()) opts.nps = default_nps(topo.cores());
  const std::vector<int> predicted = predicted_nps(opts.predict_nps, topo.cores());
  opts.confirm_shapes = confirmed_for(opts, 1, opts.nps, predicted);
  // With --plan, the sizes measured whole only: they time the plan.
  const std::vector<int> measured = opts.plan ? measured_whole(opts.nps) : opts.nps;
  const int max_np = *std::max_element(measured.begin(), measured.end());
  check_buffer_memory(opts, max_np, max_np, true);
  const OpenedResults results = open_results(opts, topo.fingerprint());
  Options jobs = opts;
  jobs.nps = measured;
  if (opts.plan) jobs.confirm_shapes.clear();
  std::cout << "ccautotune: " << topo.summary() << ", fingerprint " << topo.fingerprint()
            << "; results in " << opts.results << std::endl;  // flushed: the ranks are forks
  const Noise before = announce(probe_noise(topo.cores()), "before tuning");
  JobTimes first(false, opts.measure.warmup), second(false, opts.measure.warmup);
  keep_job_times(opts.results, opts.resume, {&first, &second});
  KeptShortlists shortlists(opts.results, opts.resume);
  bool ok = run_jobs(registry, topo, jobs, results.known, {first, shortlists});
  if (ok && !opts.single_job && !opts.search.reconfirm) {
    std::cout << "ccautotune: " << kSecondJob << std::endl;
    jobs.search.reconfirm = opts.search.reconfirm = true;
    std::map<std::string, ResultRow> known;
    for (ResultRow& row : read_results(opts.results)) known.try_emplace(row.key(), std::move(row));
    ok = run_jobs(registry, topo, jobs, known, {second, shortlists});
  }
  if (opts.plan) return say_plan(registry, topo, opts, shortlists, first, second) && ok ? 0 : 1;
  opts.noise = {before, announce(probe_noise(topo.cores()), "after tuning")};
  const PredictionPlan plan{.shape = [&](int nodes, int np) { return job_shape(topo, nodes, np); },
                            .nps = predicted};
  return write_profile(registry, describe_machine(topo, max_np), opts, &plan) && ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::optional<Options> opts = parse_args(argc, argv);
    if (!opts) return 0;  // --help or --version
    if (started_by_mpirun()) return run_on_cluster(std::move(*opts), &argc, &argv);
    if (opts->launch_mpirun) return relaunch_under_mpirun(*opts, argc, argv);
    return run(std::move(*opts));
  } catch (const UsageError& e) {
    std::cerr << "ccautotune: " << e.what() << "\nrun 'ccautotune --help' for usage\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ccautotune: " << e.what() << "\n";
    return 1;
  }
}
