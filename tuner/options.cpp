#include "tuner/options.hpp"

#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>

#include "cct/cli/validators.hpp"
#include "cct/error.hpp"
#include "cct/units.hpp"

namespace cct::tuner {

void check_names(const Registry& registry, const SpaceFilter& filter) {
  for (const std::string& name : filter.transports)
    if (!registry.find_transport(name))
      throw UsageError("--transports: no transport plugin '" + name + "' (see ccinfo)");
  const auto check_algorithms = [&](const char* flag, const std::vector<std::string>& names) {
    for (const std::string& name : names)
      if (std::none_of(registry.algorithms().begin(), registry.algorithms().end(),
                       [&](const AlgorithmEntry& a) { return name == a.desc->name; }))
        throw UsageError(std::string(flag) + ": no algorithm plugin '" + name + "' (see ccinfo)");
  };
  check_algorithms("--algorithms", filter.algorithms);
  check_algorithms("--exclude", filter.excluded);
}

namespace {

const char* const kDescription =
    "Measures every algorithm that can run, with every combination of its\n"
    "parameters, over message sizes and rank counts, on every transport, and\n"
    "appends one CSV row per measurement to DIR/<fingerprint>.csv as it\n"
    "finishes. Per size, cheap rounds prune the clearly slower candidates\n"
    "(successive halving) and the rest get the full timing; the winner is then\n"
    "timed again beside its runner-up and the MPI library's call as an OSU-style\n"
    "loop calls them (through the interposer's path), which decides the size;\n"
    "where neighbouring sizes have different winners, the crossover is\n"
    "bisected; off-grid sizes\n"
    "check the result. Then writes the profile DIR/<fingerprint>.yaml: for\n"
    "each collective, transport, rank count and size, the fastest algorithm\n"
    "of every row of the results file (also when a job failed); within the\n"
    "noise of the figures, the MPI library's own call, the previous size's\n"
    "winner or the default parameters.\n";

const char* const kClusterGroup = "Beyond one node";

const char* const kFooter =
    "Beyond one node (see the README, \"Tuning a cluster\"): started by mpirun, every\n"
    "rank is a ccautotune process and the job's nodes (CCT_VIRTUAL_NODES=k: k blocks\n"
    "of consecutive ranks) are tuned per shape, nodes x ranks per node; between\n"
    "nodes the transport is mpi, with shm inside each node. --np does not apply.\n"
    "\n"
    "Exit status: 0, 1 when a job failed (the others still ran), 2 for a bad argument.";

// A comma-separated list: one argument per flag ("--np 2,4"), repeatable.
template <typename T>
CLI::Option* add_list(CLI::App& app, const std::string& flag, std::vector<T>& items,
                      const std::string& type, const std::string& help) {
  return app.add_option(flag, items, help)
      ->delimiter(',')
      ->allow_extra_args(false)
      ->type_name(type);
}

// The options of one machine's run, the measurement and the output.
void add_run_options(CLI::App& app, Options& opts) {
  add_list(app, "--np", opts.nps, "N,N,..",
           "rank counts (default: 2, 4, .. up to the cores, and the\n"
           "cores; on a node of more than 32 cores 2, 4, 16, 64, ..\n"
           "and the cores, the sizes between predicted and confirmed)");
  add_list(app, "--predict-np", opts.predict_nps, "N,N,..",
           "rank counts whose rules the cost model predicts from the\n"
           "measured ones, where not measured (default: 2, 4, .. up to\n"
           "the cores, and the cores; on a simulated fabric, none;\n"
           "under mpirun, communicators on one node); those between\n"
           "the second smallest --np and the largest (under mpirun,\n"
           "as ranks per node of each node count, between its\n"
           "--ranks-per-node) a short job confirms, last: the model's\n"
           "fastest measured beside the picks of the sizes on both\n"
           "sides and the library's call, without crossovers, checks,\n"
           "element types or roots and timed once (not with\n"
           "--exhaustive or --shortlist 0)");
  add_list(app, "--collectives", opts.filter.collectives, "a,b",
           "only these collectives (default: all)");
  add_list(app, "--transports", opts.filter.transports, "a,b",
           "only these transports (default: all that run between\n"
           "processes here; a simulated one, e.g. rapidio_sim, only when\n"
           "named, and alone: its profile is keyed by its platform)");
  app.add_option("--fabric", opts.fabric,
                 "the simulated platform: a rapidio_sim fabric preset (chain:N,\n"
                 "ring:N, mesh:N, tree:N boards of 4 DSPs; seed) or YAML file;\n"
                 "implies --transports rapidio_sim. Measures virtual time,\n"
                 "one repetition per point (the simulation is deterministic);\n"
                 "--np defaults to 4,16,64 and --max-bytes to 64k")
      ->type_name("F");
  add_list(app, "--algorithms", opts.filter.algorithms, "a,b",
           "only these algorithm names (default: all)");
  add_list(app, "--exclude", opts.filter.excluded, "a,b",
           "leave these algorithm names out of the measurements and\n"
           "of the profile (e.g. one that crashes; rows of earlier\n"
           "runs included)");
  app.add_option("--min-bytes", opts.filter.min_bytes, "smallest message (default 1)")
      ->transform(cct::cli::byte_size())
      ->type_name("SIZE");
  app.add_option("--max-bytes", opts.filter.max_bytes, "largest message (default 4M)")
      ->transform(cct::cli::byte_size())
      ->type_name("SIZE");
  app.add_option("--max-rank-bytes", opts.filter.max_rank_bytes,
                 "a collective's sizes stop where one call would take\n"
                 "more of a rank's memory, send and receive buffers\n"
                 "together (alltoall: 2 x np x size; default 128M)")
      ->transform(cct::cli::byte_size())
      ->type_name("SIZE");
  add_list(app, "--datatypes", opts.datatype_names, "a,b",
           "a reduction's winners and finalists are measured again\n"
           "in these element types, and the profile gets rules of a\n"
           "type where its winners differ from int32's (default:\n"
           "float,double; none: int32 only)");
  app.add_option_function<std::string>(
         "--roots", [&opts](const std::string& which) { opts.search.other_root = which == "last"; },
         "a rooted collective's winners and finalists are measured\n"
         "again at root 0 and at the last rank, and the profile\n"
         "gets rules of the roots other than 0 where their winners\n"
         "differ (default: last; none: root 0 only)")
      ->check(CLI::IsMember({"last", "none"}).description(""))
      ->type_name("last|none");
  app.add_flag("--quick", opts.filter.quick,
               "every 4th size, default parameters only, one level of\n"
               "crossover bisection, and --budget 0.25 unless given");
  app.add_option_function<std::string>(
         "--vector-counts",
         [&opts](const std::string& name) {
           opts.filter.vector_counts =
               name == "both"
                   ? std::vector<CountPattern>{CountPattern::kEqual, CountPattern::kSkewed}
                   : std::vector<CountPattern>{*find_count_pattern(name)};
         },
         "the blocks the vector collectives (gatherv, scatterv,\n"
         "allgatherv, alltoallv, reduce_scatter) are measured with:\n"
         "equal, skewed (rank 0 up to 4 times the average, odd ranks\n"
         "none), or both (default: a figure is one call of each)")
      ->check(CLI::IsMember({"equal", "skewed", "both"}).description(""))
      ->type_name("equal|skewed|both");
  app.add_flag("--exhaustive", opts.search.exhaustive,
               "no pruning: the full timing for every candidate at\n"
               "every --np (no shortlist either)");
  app.add_flag("--plan", opts.plan,
               "measure the two smallest --np, then say how long each\n"
               "other one will take and stop (--resume goes on)");
  app.add_option("--shortlist", opts.shortlist,
                 "beyond the two smallest --np (under mpirun, the two\n"
                 "smallest --ranks-per-node of each node count), measure at\n"
                 "each size only the K candidates the cost model predicts\n"
                 "fastest there, with the previous np's pick and the\n"
                 "library's call, less those it puts far behind and ties;\n"
                 "0: every candidate (default 2)")
      ->type_name("K");
  app.add_option("--budget", opts.measure.budget_s, "time budget per point (default 1)")
      ->type_name("SECONDS");
  app.add_option("--time-budget", opts.time_budget_s,
                 "stop measuring a job once its points add up to this\n"
                 "much measured time; --resume continues (default: none)")
      ->type_name("SECONDS");
  app.add_flag("--verbose", opts.verbose,
               "one line per point with median, min, max and repetitions");
  app.add_option("--buffers", opts.measure.buffers, "rotate among K buffer sets (default 1)")
      ->type_name("K");
  app.add_option("--from-results", opts.from_results,
                 "measure nothing: this machine's profile from the results\n"
                 "of another machine of its kind (FILE.csv, its profile\n"
                 "beside it): their rules as measured, this machine's\n"
                 "other --predict-np sizes predicted by the cost model")
      ->type_name("FILE");
  app.add_option("--out", opts.out,
                 "profile and results directory (default: where the\n"
                 "runtime looks: build/profiles in a build tree, else\n"
                 "<prefix>/share/ccautotune/profiles when writable, else\n"
                 "~/.local/share/ccautotune/profiles)")
      ->type_name("DIR");
  app.add_flag("--resume", opts.resume,
               "continue the results file, skipping the points it holds,\n"
               "with the job times and shortlists kept beside it (.jobs,\n"
               ".shortlists); without, those are started anew");
  app.add_flag("--single-job", opts.single_job,
               "skip the second job, which times each size's picks again\n"
               "as programs call them in fresh processes (faster, less sure)");
  app.add_flag("--reconfirm", opts.search.reconfirm,
               "be that second job: time the results file's confirmations\n"
               "again (implies --resume; ccautotune starts it by itself)");
  app.add_flag("--report", opts.report,
               "also write DIR/<fingerprint>.html: the results as plots, one\n"
               "self-contained page (for an existing results file: ccprofile report)");
  app.add_option("--timeout", opts.timeout_s,
                 "limit per job of one transport and rank count (default 3600)")
      ->type_name("SECONDS");
  app.add_option("--hang-timeout", opts.hang_timeout_s,
                 "a job whose ranks start no call for this long (at least 10\n"
                 "point budgets) has a rank that hangs: name it, record the\n"
                 "candidate it ran as failed, go on without it (default 60)")
      ->type_name("SECONDS");
}

// The shapes of a run under mpirun, and --launcher mpirun's own.
void add_cluster_options(CLI::App& app, Options& opts) {
  add_list(app, "--nodes", opts.nodes, "N,N,..",
           "node counts of the shapes (default: all the job's nodes)")
      ->group(kClusterGroup);
  add_list(app, "--ranks-per-node", opts.ranks_per_node, "N,..",
           "ranks per node of the shapes (default: 1, 2, 4, .. up\n"
           "to the fewest ranks any node has, and that, as --np\n"
           "thins them beyond 32; no shape of one rank)")
      ->group(kClusterGroup);
  add_list(app, "--predict-nodes", opts.predict_nodes, "N,N,..",
           "node counts whose rules the cost model predicts from the\n"
           "measured ones, for each --ranks-per-node (default: twice\n"
           "the largest of --nodes, doubling up to 16 times it)")
      ->group(kClusterGroup);
  app.add_option_function<std::string>(
         "--launcher", [&opts](const std::string& name) { opts.launch_mpirun = name == "mpirun"; },
         "start that job: run mpirun with this command line\n"
         "(local, the default: run here)")
      ->check(CLI::IsMember({"local", "mpirun"}).description(""))
      ->type_name("mpirun")
      ->group(kClusterGroup);
  app.add_option("--hostfile", opts.hostfile, "with --launcher mpirun: the hosts, passed to mpirun")
      ->type_name("FILE")
      ->group(kClusterGroup);
  app.add_option("--outside-runs", opts.outside_runs,
                 "with --launcher mpirun on one machine: once the profile is\n"
                 "written, time it as a user does, the plain MPI benchmark\n"
                 "osu_style_bench this many times alone and this many times\n"
                 "under the interposer, alternated, and give back to the\n"
                 "library every size where the profile's pick is not 5%\n"
                 "faster in the median (up to twice as many runs until each\n"
                 "side has two at each latency level; default 7; 0: no\n"
                 "outside check)")
      ->type_name("N")
      ->group(kClusterGroup);
  app.add_option("--mpirun-args", opts.mpirun_args,
                 "with --launcher mpirun: more arguments for mpirun\n"
                 "(e.g. \"-np 8 --map-by node\")")
      ->type_name("\"A\"")
      ->group(kClusterGroup);
}

// A number flag's value in [lo, hi], or UsageError saying so.
void check_range(const char* flag, double value, double lo, double hi, const char* unit) {
  if (!(value >= lo && value <= hi))  // NaN fails both
    throw UsageError(std::string(flag) + ": " + CLI::detail::to_string(value) + " is outside " +
                     CLI::detail::to_string(lo) + ".." + CLI::detail::to_string(hi) + unit);
}

// The bounds of the number flags: what a run can use, not what parses.
// A point's budget beyond an hour, or rotating among more buffer sets than
// fit in a cache hierarchy many times over, only hides a typo (the buffers
// are allocated per rank: --buffers 100000 wanted gigabytes each).
void check_ranges(const Options& opts) {
  check_range("--budget", opts.measure.budget_s, 0.001, 3600, " seconds");
  check_range("--time-budget", opts.time_budget_s, 0, 1e7, " seconds (0: none)");
  check_range("--timeout", opts.timeout_s, 1, 1e7, " seconds");
  check_range("--hang-timeout", opts.hang_timeout_s, 1, 1e7, " seconds");
  check_range("--buffers", opts.measure.buffers, 1, 64, " buffer sets");
  check_range("--shortlist", opts.shortlist, 0, 1000, " candidates");
  if (opts.filter.min_bytes > opts.filter.max_bytes)
    throw UsageError("--min-bytes " + format_bytes(opts.filter.min_bytes) +
                     " is above --max-bytes " + format_bytes(opts.filter.max_bytes) +
                     ": no size to measure");
}

// The local launcher opens two sockets per rank before its first fork: a
// rank count past the open-file limit would fail there, after the setup.
void check_np_fits(int np) {
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) != 0 || files.rlim_cur == RLIM_INFINITY) return;
  const rlim_t needed = 2 * static_cast<rlim_t>(np) + 64;
  if (needed > files.rlim_cur)
    throw UsageError("--np " + std::to_string(np) + ": the local launcher needs about " +
                     std::to_string(needed) + " open files, and the limit here is " +
                     std::to_string(files.rlim_cur) + " (ulimit -n)");
}

// What parsing alone cannot check: ranges, and flags that need each other.
void validate(const Options& opts) {
  check_ranges(opts);
  for (int n : opts.nps) {
    if (n < 1) throw UsageError("--np: rank counts start at 1");
    check_np_fits(n);
  }
  for (int n : opts.predict_nps)
    if (n < 1) throw UsageError("--predict-np: rank counts start at 1");
  for (int n : opts.nodes)
    if (n < 1) throw UsageError("--nodes: node counts start at 1");
  for (int n : opts.ranks_per_node)
    if (n < 1) throw UsageError("--ranks-per-node: rank counts start at 1");
  for (int n : opts.predict_nodes)
    if (n < 2)
      throw UsageError("--predict-nodes: node counts start at 2 (one node's sizes: --predict-np)");
  if (!opts.from_results.empty() &&
      (!opts.nps.empty() || opts.resume || opts.plan || !opts.fabric.empty() ||
       opts.launch_mpirun || opts.search.exhaustive))
    throw UsageError(
        "--from-results measures nothing: it goes with none of --np, --resume, --plan, --fabric, "
        "--launcher and --exhaustive");
  if (opts.search.reconfirm && opts.single_job)
    throw UsageError("--reconfirm is the second job, which --single-job leaves out");
  if (opts.outside_runs < 0) throw UsageError("--outside-runs: a count, 0 for no outside check");
  if (!opts.launch_mpirun && !(opts.hostfile.empty() && opts.mpirun_args.empty()))
    throw UsageError("--hostfile and --mpirun-args go with --launcher mpirun");
  for (const std::string& name : opts.filter.collectives)
    if (cct_collective c; !cct::parse_collective(name, &c))
      throw UsageError("--collectives: unknown collective '" + name + "'");
}

// --datatypes as element types: "none" alone for none.
std::vector<cct_datatype> datatypes_of(const std::vector<std::string>& names) {
  if (names == std::vector<std::string>{"none"}) return {};
  std::vector<cct_datatype> types;
  for (const std::string& name : names) {
    cct_datatype t;
    if (!cct::parse_datatype(name, &t))
      throw UsageError("--datatypes: unknown element type '" + name +
                       "' (int8, int16, int32, int64, uint8 ... uint64, float, double; or none)");
    if (t == kReferenceType)
      throw UsageError(std::string("--datatypes: ") + datatype_name(t) +
                       " is what every reduction is measured in, the others beside it: name only "
                       "the others");
    if (std::ranges::find(types, t) == types.end()) types.push_back(t);
  }
  return types;
}

}  // namespace

std::optional<Options> parse_args(int argc, char** argv) {
  Options opts;
  CLI::App app{kDescription, "ccautotune"};
  app.footer(kFooter);
  app.set_version_flag("--version", "ccautotune " CCT_VERSION);
  // A flag given twice keeps its last value, as it always has; lists add up.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  add_run_options(app, opts);
  add_cluster_options(app, opts);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    app.exit(e);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  opts.max_bytes_given = app.count("--max-bytes") > 0;
  for (int i = 0; i < argc; ++i) opts.command_line += (i ? " " : "") + std::string(argv[i]);
  if (opts.filter.quick) {
    opts.search.bisect_depth = 1;
    if (app.count("--budget") == 0) opts.measure.budget_s = 0.25;
  }
  if (opts.search.reconfirm) opts.resume = true;
  validate(opts);
  opts.search.datatypes = datatypes_of(opts.datatype_names);
  return opts;
}

}  // namespace cct::tuner
