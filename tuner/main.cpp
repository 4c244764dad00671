// ccautotune: measures every applicable point on this machine, appends it
// to the raw results file, then writes the tuned profile from the winners.
//
// One local job per (transport, np): its ranks enumerate the same points,
// measure them together, and rank 0 writes the rows and the progress. The
// profile is built from every row of the results file (with --resume, also
// those of earlier runs), saved as <out>/<fingerprint>.yaml and loaded back
// with the registry as a check.
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
#include "cct/topology.hpp"
#include "cct/units.hpp"
#include "tuner/machine.hpp"
#include "tuner/measure.hpp"
#include "tuner/plan_space.hpp"
#include "tuner/progress.hpp"
#include "tuner/results_csv.hpp"
#include "tuner/winners.hpp"

namespace {

namespace fs = std::filesystem;

using namespace cct::tuner;

const char* const kUsage =
    "usage: ccautotune [options]\n"
    "\n"
    "Measures every algorithm that can run, with every combination of its\n"
    "parameters, over message sizes and rank counts, on every transport, and\n"
    "appends one CSV row per point to DIR/<fingerprint>.csv as it finishes.\n"
    "Then writes the profile DIR/<fingerprint>.yaml: for each collective,\n"
    "transport, rank count and size, the fastest algorithm of every row of\n"
    "the results file (also when a job failed).\n"
    "\n"
    "  --np N,N,..          rank counts (default: 2, 4, .. up to the cores, and the cores)\n"
    "  --collectives a,b    only these collectives (default: all)\n"
    "  --transports a,b     only these transports (default: all)\n"
    "  --algorithms a,b     only these algorithm names (default: all)\n"
    "  --min-bytes SIZE     smallest message (default 1)\n"
    "  --max-bytes SIZE     largest message (default 4M)\n"
    "  --quick              every 4th size, default parameters only\n"
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
  std::vector<int> nps;
  std::string out;      // default: cct::default_profile_out_dir()
  std::string results;  // <out>/<fingerprint>.csv
  bool resume = false;
  bool verbose = false;
  double timeout_s = 3600;
  double time_budget_s = 0;  // 0: none
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
  else if (flag == "--out")
    opts.out = value;
  else if (flag == "--timeout")
    opts.timeout_s = number_arg(flag, value);
  else
    throw UsageError("unknown argument '" + flag + "'");
}

Options parse_args(int argc, char** argv) {
  Options opts;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--quick")
      opts.filter.quick = true;
    else if (flag == "--verbose")
      opts.verbose = true;
    else if (flag == "--resume")
      opts.resume = true;
    else if (i + 1 < argc)
      apply(opts, flag, argv[++i]);
    else
      throw UsageError("'" + flag + "' needs a value, or is unknown");
  }
  for (int n : opts.nps)
    if (n < 1) throw UsageError("--np: rank counts start at 1");
  for (const std::string& name : opts.filter.collectives)
    if (cct_collective c; !cct::parse_collective(name, &c))
      throw UsageError("--collectives: unknown collective '" + name + "'");
  return opts;
}

std::string label(const Point& p) {
  const ResultRow row = p.row({});
  return row.collective + " " + row.transport + " np=" + std::to_string(p.np) + " " +
         cct::format_bytes(p.call.bytes) + " " + row.algorithm +
         (row.params.empty() ? "" : " " + row.params);
}

void report_skips(const Space& space, int np) {
  for (const Skip& s : space.skipped)
    std::cout << "skip " << s.collective << "/" << s.algorithm << " at np=" << np << " ("
              << s.points << " points): " << s.reason << "\n";
}

// What rank 0 alone does: report the skips, write the rows, show progress.
class Reporter {
 public:
  Reporter(const Space& space, std::size_t todo, const std::string& out, int np)
      : writer_(out), progress_(std::cout, todo, isatty(STDOUT_FILENO)) {
    report_skips(space, np);
  }
  ~Reporter() { progress_.close(); }
  void start(const Point& p) { progress_.start(label(p)); }
  void finish(const Point& p, const PointResult& result, bool verbose) {
    writer_.append(p.row(result));
    progress_.finish_one();
    if (verbose)
      std::cout << "  " << label(p) << ": median " << result.median_s * 1e6 << " us, min "
                << result.min_s * 1e6 << ", max " << result.max_s * 1e6 << ", " << result.reps
                << " reps\n";
  }

 private:
  ResultsWriter writer_;
  Progress progress_;
};

std::vector<const Point*> unfinished(const Space& space, const std::set<std::string>& keys) {
  std::vector<const Point*> todo;
  for (const Point& p : space.points)
    if (!keys.contains(p.row({}).key())) todo.push_back(&p);
  return todo;
}

// The plan for p: the current one when p shares its algorithm and values
// (the space lists such points together), else a new one.
void ensure_plan(std::unique_ptr<cct::Plan>& plan, const Point& p, const cct::Communicator& comm) {
  if (plan && plan->algorithm().desc == p.algorithm->desc && plan->params() == p.params) return;
  plan.reset();  // destroyed (collectively) before the next is prepared
  plan = std::make_unique<cct::Plan>(*p.algorithm, comm, p.params);
}

// Measures the points of space that keys does not hold, on every rank.
void measure_space(const cct::Registry& registry, cct::Communicator& comm, const Space& space,
                   const Options& opts, const std::set<std::string>& keys) {
  const std::vector<const Point*> todo = unfinished(space, keys);
  std::optional<Reporter> reporter;
  if (comm.rank() == 0) reporter.emplace(space, todo.size(), opts.results, comm.size());
  std::vector<Call> calls;
  for (const Point* p : todo) calls.push_back(p->call);
  Measurer measurer(registry, comm, calls, opts.measure);
  std::unique_ptr<cct::Plan> plan;
  // The figures are the same on every rank (the measurer agrees on them),
  // so every rank stops at the same point without a word between them.
  double measured_s = 0;
  for (const Point* p : todo) {
    if (opts.time_budget_s > 0 && measured_s > opts.time_budget_s) {
      if (reporter)
        std::cout << "ccautotune: time budget spent at np=" << comm.size()
                  << "; run again with --resume to measure the rest\n";
      break;
    }
    ensure_plan(plan, *p, comm);
    if (reporter) reporter->start(*p);
    const PointResult result = measurer.measure(*plan, p->call);
    measured_s += result.median_s * result.reps;
    if (reporter) reporter->finish(*p, result, opts.verbose);
  }
}

// One job: np ranks over the transport, bound as the topology suggests.
bool run_job(const cct::Registry& registry, const cct::Topology& topo,
             const cct::TransportEntry& transport, int np, const Options& opts,
             const std::set<std::string>& keys) {
  const cct::LaunchResult result =
      cct::launch_local({.ranks = np, .timeout_s = opts.timeout_s}, [&](cct::Bootstrap& boot) {
        int pu = topo.pu_for_rank(boot.rank(), boot.size());
        if (!topo.bind_to_pu(pu)) pu = -1;
        auto instance = std::make_shared<cct::TransportInstance>(transport, boot);
        cct::Communicator comm(boot, instance, topo, pu);
        measure_space(registry, comm, enumerate(registry, comm, opts.filter), opts, keys);
        return 0;
      });
  if (!result.ok)
    std::cerr << "ccautotune: " << transport.desc->name << " at np=" << np << ": " << result.error
              << "\n";
  return result.ok;
}

std::set<std::string> resume_keys(const Options& opts) {
  if (opts.resume) return finished_keys(read_results(opts.results));
  if (fs::exists(opts.results) && fs::file_size(opts.results) > 0)
    throw UsageError(opts.results + " exists: pass --resume to continue it, or remove it");
  return {};
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
          {"np", nps.str()}};
}

// The profile of every row of the results file, saved, loaded back with the
// registry as a check, and shown.
void write_profile(const cct::Registry& registry, const cct::Topology& topo, const Options& opts) {
  const Winners winners = pick_winners(read_results(opts.results), registry);
  for (const std::string& why : winners.ignored)
    std::cerr << "ccautotune: results rows left out of the profile: " << why << "\n";
  const cct::Profile profile{
      .tool_version = CCT_VERSION,
      .date = utc_now(),
      .machine = describe_machine(topo, *std::max_element(opts.nps.begin(), opts.nps.end())),
      .tuning = tuning_settings(opts),
      .rules = build_rules(winners.best)};
  const std::string path = (fs::path(opts.out) / (profile.machine.fingerprint + ".yaml")).string();
  cct::save_profile(profile, path);
  cct::load_profile(path, &registry);
  std::cout << rules_table(profile.rules) << "profile: " << path << "\nresults: " << opts.results
            << "\n";
}

int run(Options opts) {
  cct::Registry registry;
  registry.load_default();
  const cct::Topology topo = cct::Topology::discover();
  if (opts.nps.empty()) opts.nps = default_nps(topo.cores());
  if (opts.out.empty()) opts.out = cct::default_profile_out_dir();
  opts.results = (fs::path(opts.out) / (topo.fingerprint() + ".csv")).string();
  const std::set<std::string> keys = resume_keys(opts);
  fs::create_directories(opts.out);
  std::cout << "ccautotune: " << topo.summary() << ", fingerprint " << topo.fingerprint()
            << "; results in " << opts.results << std::endl;  // flushed: the ranks are forks
  bool ok = true;
  for (const cct::TransportEntry& transport : registry.transports())
    if (selected(opts.filter.transports, transport.desc->name))
      for (int np : opts.nps) ok = run_job(registry, topo, transport, np, opts, keys) && ok;
  write_profile(registry, topo, opts);
  return ok ? 0 : 1;
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
