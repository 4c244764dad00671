// ccautotune: searches every applicable point on this machine, appends each
// measurement to the raw results file, then writes the tuned profile from
// the winners.
//
// One local job per (transport, np): its ranks enumerate the same points,
// run the same search (search.hpp) on the same figures, and rank 0 writes
// the rows and the progress. The profile is built from every row of the
// results file (with --resume, also those of earlier runs), saved as
// <out>/<fingerprint>.yaml, loaded back with the registry as a check, and
// its accuracy at off-grid sizes is reported.
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cct/error.hpp"
#include "cct/launcher.hpp"
#include "cct/profile.hpp"
#include "cct/registry.hpp"
#include "cct/simulate.hpp"
#include "cct/topology.hpp"
#include "cct/units.hpp"
#include "tuner/accuracy.hpp"
#include "tuner/machine.hpp"
#include "tuner/measure.hpp"
#include "tuner/plan_space.hpp"
#include "tuner/progress.hpp"
#include "tuner/results_csv.hpp"
#include "tuner/search.hpp"
#include "tuner/winners.hpp"

namespace {

namespace fs = std::filesystem;

using namespace cct::tuner;

const char* const kUsage =
    "usage: ccautotune [options]\n"
    "\n"
    "Measures every algorithm that can run, with every combination of its\n"
    "parameters, over message sizes and rank counts, on every transport, and\n"
    "appends one CSV row per measurement to DIR/<fingerprint>.csv as it\n"
    "finishes. Per size, cheap rounds prune the clearly slower candidates\n"
    "(successive halving) and the rest get the full timing; where neighbouring\n"
    "sizes have different winners, the crossover is bisected; off-grid sizes\n"
    "check the result. Then writes the profile DIR/<fingerprint>.yaml: for\n"
    "each collective, transport, rank count and size, the fastest algorithm\n"
    "of every row of the results file (also when a job failed).\n"
    "\n"
    "  --np N,N,..          rank counts (default: 2, 4, .. up to the cores, and the cores)\n"
    "  --collectives a,b    only these collectives (default: all)\n"
    "  --transports a,b     only these transports (default: all that run between\n"
    "                       processes here; a simulated one, e.g. rapidio_sim, only when\n"
    "                       named, and alone: its profile is keyed by its platform)\n"
    "  --fabric F           the simulated platform: a rapidio_sim fabric preset (chain:N,\n"
    "                       ring:N, mesh:N, tree:N boards of 4 DSPs; seed) or YAML file;\n"
    "                       implies --transports rapidio_sim. Measures virtual time,\n"
    "                       one repetition per point (the simulation is deterministic);\n"
    "                       --np defaults to 4,16,64 and --max-bytes to 64k\n"
    "  --algorithms a,b     only these algorithm names (default: all)\n"
    "  --min-bytes SIZE     smallest message (default 1)\n"
    "  --max-bytes SIZE     largest message (default 4M)\n"
    "  --quick              every 4th size, default parameters only, one level of\n"
    "                       crossover bisection, and --budget 0.25 unless given\n"
    "  --exhaustive         no pruning: the full timing for every candidate\n"
    "  --budget SECONDS     time budget per point (default 1)\n"
    "  --time-budget SECONDS  stop measuring a job once its points add up to this\n"
    "                       much measured time; --resume continues (default: none)\n"
    "  --verbose            one line per point with median, min, max and repetitions\n"
    "  --buffers K          rotate among K buffer sets (default 1)\n"
    "  --out DIR            profile and results directory (default: where the\n"
    "                       runtime looks: build/profiles in a build tree, else\n"
    "                       <prefix>/share/ccautotune/profiles when writable, else\n"
    "                       ~/.local/share/ccautotune/profiles)\n"
    "  --resume             continue the results file, skipping the points it holds\n"
    "  --timeout SECONDS    limit per job of one transport and rank count (default 3600)\n"
    "  --help               this text\n"
    "\n"
    "Exit status: 0, 1 when a job failed (the others still ran), 2 for a bad argument.\n";

struct Options {
  SpaceFilter filter;
  MeasureOptions measure;
  SearchOptions search;
  std::vector<int> nps;
  std::string fabric;   // a simulated platform's config ("" : none given)
  std::string out;      // default: cct::default_profile_out_dir()
  std::string results;  // <out>/<fingerprint>.csv
  bool resume = false;
  bool verbose = false;
  double timeout_s = 3600;
  double time_budget_s = 0;  // 0: none
  bool max_bytes_given = false;
};

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

int64_t bytes_arg(const std::string& flag, const std::string& text) {
  const std::optional<int64_t> bytes = cct::parse_bytes(text);
  if (!bytes) throw UsageError(flag + ": not a size: '" + text + "'");
  return *bytes;
}

int int_arg(const std::string& flag, const std::string& text) {
  std::size_t used = 0;
  try {
    const int value = std::stoi(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  throw UsageError(flag + ": not an integer: '" + text + "'");
}

double number_arg(const std::string& flag, const std::string& text) {
  try {
    return std::stod(text);
  } catch (const std::exception&) {
    throw UsageError(flag + ": not a number: '" + text + "'");
  }
}

std::vector<int> default_nps(int cores) {
  std::vector<int> nps;
  for (int n = 2; n <= cores; n *= 2) nps.push_back(n);
  if (nps.empty() || nps.back() != std::max(cores, 2)) nps.push_back(std::max(cores, 2));
  return nps;
}

// Applies one flag (and its value, when it takes one) to opts.
void apply(Options& opts, const std::string& flag, const std::string& value) {
  if (flag == "--np")
    for (const std::string& n : split_list(value)) opts.nps.push_back(int_arg(flag, n));
  else if (flag == "--collectives")
    opts.filter.collectives = split_list(value);
  else if (flag == "--transports")
    opts.filter.transports = split_list(value);
  else if (flag == "--algorithms")
    opts.filter.algorithms = split_list(value);
  else if (flag == "--min-bytes")
    opts.filter.min_bytes = bytes_arg(flag, value);
  else if (flag == "--max-bytes")
    opts.filter.max_bytes = bytes_arg(flag, value);
  else if (flag == "--budget")
    opts.measure.budget_s = number_arg(flag, value);
  else if (flag == "--time-budget")
    opts.time_budget_s = number_arg(flag, value);
  else if (flag == "--buffers")
    opts.measure.buffers = int_arg(flag, value);
  else if (flag == "--fabric")
    opts.fabric = value;
  else if (flag == "--out")
    opts.out = value;
  else if (flag == "--timeout")
    opts.timeout_s = number_arg(flag, value);
  else
    throw UsageError("unknown argument '" + flag + "'");
}

Options parse_args(int argc, char** argv) {
  Options opts;
  bool budget_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    budget_given = budget_given || flag == "--budget";
    opts.max_bytes_given = opts.max_bytes_given || flag == "--max-bytes";
    if (flag == "--quick") {
      opts.filter.quick = true;
      opts.search.bisect_depth = 1;
    } else if (flag == "--exhaustive")
      opts.search.exhaustive = true;
    else if (flag == "--verbose")
      opts.verbose = true;
    else if (flag == "--resume")
      opts.resume = true;
    else if (i + 1 < argc)
      apply(opts, flag, argv[++i]);
    else
      throw UsageError("'" + flag + "' needs a value, or is unknown");
  }
  if (opts.filter.quick && !budget_given) opts.measure.budget_s = 0.25;
  for (int n : opts.nps)
    if (n < 1) throw UsageError("--np: rank counts start at 1");
  for (const std::string& name : opts.filter.collectives)
    if (cct_collective c; !cct::parse_collective(name, &c))
      throw UsageError("--collectives: unknown collective '" + name + "'");
  return opts;
}

std::string label(const Point& p, const char* stage) {
  const ResultRow row = p.row({});
  return row.collective + " " + row.transport + " np=" + std::to_string(p.np) + " " +
         cct::format_bytes(p.call.bytes) + " " + row.algorithm +
         (row.params.empty() ? "" : " " + row.params) + " (" + stage + ")";
}

void report_skips(const Space& space, int np) {
  for (const Skip& s : space.skipped)
    std::cout << "skip " << s.collective << "/" << s.algorithm << " at np=" << np << " ("
              << s.points << " points): " << s.reason << "\n";
}

// What rank 0 alone does: report the skips, write the rows, show progress.
class Reporter {
 public:
  Reporter(const Space& space, std::size_t todo, const Options& opts, int np)
      : writer_(opts.results),
        progress_(std::cout, todo, isatty(STDOUT_FILENO)),
        verbose_(opts.verbose) {
    report_skips(space, np);
  }
  ~Reporter() { progress_.close(); }
  void start(const Point& p, const char* stage) { progress_.start(label(p, stage)); }
  void add(std::size_t points) { progress_.add(points); }
  void finish(const Point& p, const PointResult& result, Stage stage) {
    writer_.append(p.row(result, stage));
    progress_.finish_one();
    if (verbose_)
      std::cout << "  " << label(p, stage_name(stage)) << ": median " << result.median_s * 1e6
                << " us, min " << result.min_s * 1e6 << ", max " << result.max_s * 1e6 << ", "
                << result.reps << " reps\n";
  }

 private:
  ResultsWriter writer_;
  Progress progress_;
  bool verbose_;
};

// Thrown on every rank at the same point (their figures are the same) once
// the job's measured time passes --time-budget.
struct BudgetSpent {};

// The search's access to one job: plans prepared once per candidate and kept
// for the collective, the shared buffers, the budget, and (rank 0) the rows.
class JobMeasurer final : public PointMeasurer {
 public:
  JobMeasurer(Measurer& measurer, const cct::Communicator& comm, const Options& opts,
              Reporter* reporter)
      : measurer_(measurer), comm_(comm), opts_(opts), reporter_(reporter) {}

  PointResult screen(const Point& p, int reps) override {
    MeasureOptions limits = opts_.measure;
    limits.warmup = 1;
    // A simulated platform repeats itself exactly: one repetition is the
    // figure, and screening with more would only repeat it.
    limits.min_reps = limits.max_reps = std::min(reps, opts_.measure.max_reps);
    if (reporter_)
      reporter_->start(p, ("screen " + std::to_string(limits.min_reps) + " reps").c_str());
    return timed(p, limits);
  }
  PointResult measure(const Point& p, Stage stage) override {
    if (reporter_) reporter_->start(p, stage_name(stage));
    const PointResult result = timed(p, opts_.measure);
    if (reporter_) reporter_->finish(p, result, stage);
    return result;
  }
  void pruned(const Point& p, const PointResult& last) override {
    if (reporter_) reporter_->finish(p, last, Stage::kPruned);
  }
  std::string why_unusable(const Point& p) override { return why_unusable_here(p, comm_); }
  void planned(std::size_t points) override {
    if (reporter_) reporter_->add(points);
  }
  // Destroys (collectively) the plans of the collective just searched.
  void forget_plans() { plans_.clear(); }

 private:
  PointResult timed(const Point& p, const MeasureOptions& limits) {
    if (opts_.time_budget_s > 0 && measured_s_ > opts_.time_budget_s) throw BudgetSpent{};
    const PointResult result = measurer_.measure(plan_for(p), p.call, limits);
    measured_s_ += result.median_s * result.reps;
    return result;
  }
  cct::Plan& plan_for(const Point& p) {
    std::unique_ptr<cct::Plan>& plan = plans_[{p.algorithm->desc->name, p.params}];
    if (!plan) plan = std::make_unique<cct::Plan>(*p.algorithm, comm_, p.params);
    return *plan;
  }

  Measurer& measurer_;
  const cct::Communicator& comm_;
  const Options& opts_;
  Reporter* reporter_;
  // Ordered, so every rank destroys them in the same (collective) order.
  std::map<std::pair<std::string, std::vector<int64_t>>, std::unique_ptr<cct::Plan>> plans_;
  double measured_s_ = 0;
};

std::size_t unfinished(const Space& space, const std::map<std::string, ResultRow>& known) {
  return std::count_if(space.points.begin(), space.points.end(),
                       [&](const Point& p) { return !known.contains(p.row({}).key()); });
}

// Searches the space collective by collective (it lists them in runs), on
// every rank.
void measure_space(const cct::Registry& registry, cct::Communicator& comm, const Space& space,
                   const Options& opts, const std::map<std::string, ResultRow>& known) {
  std::optional<Reporter> reporter;
  if (comm.rank() == 0) reporter.emplace(space, unfinished(space, known), opts, comm.size());
  std::vector<Call> calls;
  for (const Point& p : space.points) calls.push_back(p.call);
  Measurer measurer(registry, comm, calls, opts.measure);
  JobMeasurer job(measurer, comm, opts, reporter ? &*reporter : nullptr);
  std::span<const Point> rest(space.points);
  try {
    while (!rest.empty()) {
      const auto end = std::find_if(rest.begin(), rest.end(), [&](const Point& p) {
        return p.call.collective != rest.front().call.collective;
      });
      search_collective(rest.first(end - rest.begin()), known, opts.search, job);
      job.forget_plans();
      rest = rest.subspan(end - rest.begin());
    }
  } catch (const BudgetSpent&) {
    if (reporter)
      std::cout << "ccautotune: time budget spent at np=" << comm.size()
                << "; run again with --resume to measure the rest\n";
  }
}

// One job: np ranks over the transport, bound as the topology suggests.
bool run_job(const cct::Registry& registry, const cct::Topology& topo,
             const cct::TransportEntry& transport, int np, const Options& opts,
             const std::map<std::string, ResultRow>& known) {
  const cct::LaunchResult result =
      cct::launch_local({.ranks = np, .timeout_s = opts.timeout_s}, [&](cct::Bootstrap& boot) {
        int pu = topo.pu_for_rank(boot.rank(), boot.size());
        if (!topo.bind_to_pu(pu)) pu = -1;
        auto instance = std::make_shared<cct::TransportInstance>(transport, boot);
        cct::Communicator comm(boot, instance, topo, pu);
        measure_space(registry, comm, enumerate(registry, comm, opts.filter), opts, known);
        return 0;
      });
  if (!result.ok)
    std::cerr << "ccautotune: " << transport.desc->name << " at np=" << np << ": " << result.error
              << "\n";
  return result.ok;
}

// One job on a simulated platform: np fibers in virtual time.
bool run_simulated_job(const cct::Registry& registry, const cct::TransportEntry& transport, int np,
                       const Options& opts, const std::map<std::string, ResultRow>& known) {
  const cct::LaunchResult result = cct::launch_simulated(
      transport, {.ranks = np, .config = opts.fabric}, [&](cct::Bootstrap& boot) {
        std::shared_ptr<cct::Communicator> comm = cct::simulated_communicator(transport, boot);
        measure_space(registry, *comm, enumerate(registry, *comm, opts.filter), opts, known);
        return 0;
      });
  if (!result.ok)
    std::cerr << "ccautotune: " << transport.desc->name << " at np=" << np << ": " << result.error
              << "\n";
  return result.ok;
}

// The rows of earlier runs by key, with --resume.
std::map<std::string, ResultRow> resume_rows(const Options& opts) {
  std::map<std::string, ResultRow> known;
  if (opts.resume)
    for (ResultRow& row : read_results(opts.results)) known[row.key()] = std::move(row);
  else if (fs::exists(opts.results) && fs::file_size(opts.results) > 0)
    throw UsageError(opts.results + " exists: pass --resume to continue it, or remove it");
  return known;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::map<std::string, std::string> tuning_settings(const Options& opts) {
  std::ostringstream nps, budget;
  for (int np : opts.nps) nps << (nps.tellp() > 0 ? "," : "") << np;
  budget << opts.measure.budget_s;
  return {{"min_bytes", cct::format_bytes(opts.filter.min_bytes)},
          {"max_bytes", cct::format_bytes(opts.filter.max_bytes)},
          {"quick", opts.filter.quick ? "true" : "false"},
          {"budget_s", budget.str()},
          {"search", opts.search.exhaustive ? "exhaustive" : "successive halving"},
          {"np", nps.str()}};
}

// The profile of every row of the results file, with its accuracy at the
// off-grid checks, saved, loaded back with the registry as a check, and
// shown. Without a single usable row nothing is written, so a failed run
// never replaces an earlier profile with an empty one; returns whether one
// was written.
bool write_profile(const cct::Registry& registry, const cct::MachineInfo& machine,
                   const Options& opts) {
  const std::vector<ResultRow> rows = read_results(opts.results);
  const Winners winners = pick_winners(rows, registry);
  for (const std::string& why : winners.ignored)
    std::cerr << "ccautotune: results rows left out of the profile: " << why << "\n";
  if (winners.best.empty()) {
    std::cerr << "ccautotune: nothing measured in " << opts.results << "; no profile written\n";
    return false;
  }
  cct::Profile profile{.tool_version = CCT_VERSION,
                       .date = utc_now(),
                       .machine = machine,
                       .tuning = tuning_settings(opts),
                       .rules = build_rules(winners.best)};
  const std::string accuracy = describe(profile_accuracy(rows, profile, registry));
  profile.tuning["accuracy"] = accuracy;
  const std::string path = (fs::path(opts.out) / (profile.machine.fingerprint + ".yaml")).string();
  cct::save_profile(profile, path);
  cct::load_profile(path, &registry);
  std::cout << rules_table(profile.rules) << accuracy << "\nprofile: " << path
            << "\nresults: " << opts.results << "\n";
  return true;
}

// --transports and --algorithms name what the plugins provide.
void check_names(const cct::Registry& registry, const SpaceFilter& filter) {
  for (const std::string& name : filter.transports)
    if (!registry.find_transport(name))
      throw UsageError("--transports: no transport plugin '" + name + "' (see ccinfo)");
  for (const std::string& name : filter.algorithms)
    if (std::none_of(registry.algorithms().begin(), registry.algorithms().end(),
                     [&](const cct::AlgorithmEntry& a) { return name == a.desc->name; }))
      throw UsageError("--algorithms: no algorithm plugin '" + name + "' (see ccinfo)");
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

// Results path and (with --resume) earlier rows of a run keyed by fingerprint.
std::map<std::string, ResultRow> open_results(Options& opts, const std::string& fingerprint) {
  if (opts.out.empty()) opts.out = cct::default_profile_out_dir();
  opts.results = (fs::path(opts.out) / (fingerprint + ".csv")).string();
  std::map<std::string, ResultRow> known = resume_rows(opts);
  fs::create_directories(opts.out);
  return known;
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
  if (opts.nps.empty()) opts.nps = {4, 16, 64};
  // Simulating a large alltoall on 64 DSPs moves gigabytes packet by packet.
  if (!opts.max_bytes_given) opts.filter.max_bytes = 64 << 10;
  opts.measure.warmup = 1;
  opts.measure.min_reps = opts.measure.max_reps = 1;
  const std::map<std::string, ResultRow> known = open_results(opts, platform.fingerprint);
  const std::string name = opts.fabric.empty() ? "seed" : opts.fabric;
  std::cout << "ccautotune: " << transport.desc->name << " fabric " << name << ", fingerprint "
            << platform.fingerprint << "; results in " << opts.results << std::endl;
  bool ok = true;
  for (int np : opts.nps) ok = run_simulated_job(registry, transport, np, opts, known) && ok;
  const cct::MachineInfo machine{
      .fingerprint = platform.fingerprint,
      .summary = std::string(transport.desc->name) + " fabric " + name,
      .ranks_per_node = *std::max_element(opts.nps.begin(), opts.nps.end())};
  return write_profile(registry, machine, opts) && ok ? 0 : 1;
}

int run(Options opts) {
  cct::Registry registry;
  registry.load_default();
  if (!opts.fabric.empty() && opts.filter.transports.empty())
    opts.filter.transports = {"rapidio_sim"};
  check_names(registry, opts.filter);
  if (const cct::TransportEntry* simulated = simulated_selection(registry, opts))
    return run_simulated(registry, *simulated, std::move(opts));
  const cct::Topology topo = cct::Topology::discover();
  if (opts.nps.empty()) opts.nps = default_nps(topo.cores());
  const std::map<std::string, ResultRow> known = open_results(opts, topo.fingerprint());
  std::cout << "ccautotune: " << topo.summary() << ", fingerprint " << topo.fingerprint()
            << "; results in " << opts.results << std::endl;  // flushed: the ranks are forks
  bool ok = true;
  for (const cct::TransportEntry& transport : registry.transports())
    if (selected(opts.filter.transports, transport.desc->name) && !cct::is_simulated(transport))
      for (int np : opts.nps)
        if (serves_local_ranks(transport, np))
          ok = run_job(registry, topo, transport, np, opts, known) && ok;
  const int max_np = *std::max_element(opts.nps.begin(), opts.nps.end());
  return write_profile(registry, describe_machine(topo, max_np), opts) && ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::cout << kUsage;
      return 0;
    }
  try {
    return run(parse_args(argc, argv));
  } catch (const UsageError& e) {
    std::cerr << "ccautotune: " << e.what() << "\n" << kUsage;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ccautotune: " << e.what() << "\n";
    return 1;
  }
}
