#include "tuner/cluster.hpp"

#include <mpi.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cct/communicator.hpp"
#include "cct/error.hpp"
#include "cct/profile.hpp"
#include "cct/registry.hpp"
#include "cct/simulate.hpp"
#include "cct/topology.hpp"
#include "cct/units.hpp"
#include "mpi_bootstrap.hpp"
#include "tuner/buffer_memory.hpp"
#include "tuner/default_sizes.hpp"
#include "tuner/device_job.hpp"
#include "tuner/job.hpp"
#include "tuner/machine.hpp"
#include "tuner/noise.hpp"
#include "tuner/output.hpp"
#include "tuner/outside_check.hpp"
#include "tuner/plan_time.hpp"
#include "tuner/predict.hpp"
#include "tuner/shape_pinning.hpp"

extern char** environ;

namespace cct::tuner {
namespace {

struct Shape {
  int nodes = 1;
  int ranks_per_node = 1;
};

// Where the job's ranks are: the node of each MPI_COMM_WORLD rank (as
// MpiBootstrap numbers them) and its index among its node's ranks.
struct Layout {
  int nodes = 1;
  std::vector<int> node_of;
  std::vector<int> index_on_node;
  int fewest_per_node = 1;

  bool in_shape(int rank, const Shape& s) const {
    return node_of[rank] < s.nodes && index_on_node[rank] < s.ranks_per_node;
  }
};

Layout layout_of(Bootstrap& world) {
  Layout layout{.nodes = world.nodes(), .node_of = std::vector<int>(world.size())};
  const int mine = world.node();
  world.allgather(&mine, layout.node_of.data(), sizeof(int));
  std::vector<int> count(layout.nodes, 0);
  for (int node : layout.node_of) layout.index_on_node.push_back(count[node]++);
  layout.fewest_per_node = *std::min_element(count.begin(), count.end());
  return layout;
}

// --ranks-per-node, or its default.
std::vector<int> ranks_per_node_of(const Options& opts, const Layout& layout) {
  return opts.ranks_per_node.empty() ? measured_sizes(doubling_sizes(1, layout.fewest_per_node))
                                     : opts.ranks_per_node;
}

// --nodes, or its default: all the job's nodes.
std::vector<int> nodes_of(const Options& opts, const Layout& layout) {
  return opts.nodes.empty() ? std::vector<int>{layout.nodes} : opts.nodes;
}

// The shapes confirming jobs measure (job.hpp, confirmed_for): on each node
// count, the predicted ranks per node between those measured there (a
// shape of one rank is not measured). Across nodes, as on one node, the
// thinned ladder of a node of more than 32 cores (default_sizes.hpp)
// leaves 8, 32, .. ranks a node to them: without them a job of 8 ranks a
// node took the rules of 4.
std::vector<ConfirmedShape> confirmed_shapes(const Options& opts, const Layout& layout,
                                             const std::vector<int>& predicted) {
  std::vector<ConfirmedShape> shapes;
  for (int n : nodes_of(opts, layout)) {
    std::vector<int> measured;
    std::ranges::copy_if(ranks_per_node_of(opts, layout), std::back_inserter(measured),
                         [n](int r) { return n * r > 1; });
    for (const ConfirmedShape& s : confirmed_for(opts, n, measured, predicted)) shapes.push_back(s);
  }
  return shapes;
}

// --nodes x --ranks-per-node, checked against what the job has, then, in
// the first job, each of opts.confirm_shapes.
std::vector<Shape> shapes_of(const Options& opts, const Layout& layout) {
  const std::vector<int> nodes = nodes_of(opts, layout);
  const std::vector<int> per_node = ranks_per_node_of(opts, layout);
  for (int n : nodes)
    if (n > layout.nodes)
      throw UsageError("--nodes: " + std::to_string(n) + " nodes, and the job has " +
                       std::to_string(layout.nodes));
  for (int r : per_node)
    if (r > layout.fewest_per_node)
      throw UsageError("--ranks-per-node: " + std::to_string(r) +
                       " ranks per node, and a node of the job has " +
                       std::to_string(layout.fewest_per_node));
  std::vector<Shape> shapes;
  for (int n : nodes)
    for (int r : per_node)
      if (n * r > 1 || !opts.ranks_per_node.empty()) shapes.push_back({n, r});  // 1 rank: asked for
  // Last: a confirming job weighs the picks of the measured sizes on both
  // sides; the second job does not time it again.
  if (!opts.search.reconfirm)
    for (const ConfirmedShape& s : opts.confirm_shapes) shapes.push_back({s.nodes, s.np / s.nodes});
  return shapes;
}

// The transports of a shape: those named, else the ones the runtime uses
// for such a communicator: shm on one node, mpi between nodes, and a
// device transport (cuda) for device buffers, which a machine without a
// device skips, saying why.
bool tuned_on(const Options& opts, const TransportEntry& transport, const Shape& shape) {
  const std::string name = transport.desc->name;
  if (!opts.filter.transports.empty()) return selected(opts.filter.transports, name);
  return name == (shape.nodes > 1 ? "mpi" : "shm") || is_device_transport(transport);
}

// Rank 0's text, on every rank.
std::string broadcast_text(const std::string& text, int rank) {
  unsigned long length = text.size();
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
  std::string copy = rank == 0 ? text : std::string(length, '\0');
  MPI_Bcast(copy.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD);
  return copy;
}

// Profiles are keyed by one node's shape; a job over nodes of another
// shape would key rules to the wrong machine.
void check_same_machines(Bootstrap& world, const std::string& fingerprint) {
  constexpr std::size_t kLength = 32;
  char mine[kLength] = {};
  fingerprint.copy(mine, kLength - 1);
  std::vector<char> all(kLength * world.size());
  world.allgather(mine, all.data(), kLength);
  for (int r = 1; r < world.size(); ++r)
    if (std::strcmp(all.data() + r * kLength, all.data()) != 0)
      throw UsageError("rank " + std::to_string(r) + " runs on a machine of fingerprint " +
                       std::string(all.data() + r * kLength) + " and rank 0 on one of " +
                       std::string(all.data()) + ": tune each kind of node in a job of its own");
}

// Where rank 0 notes the candidate it runs (job_progress.hpp): a file
// beside the results, since under mpirun no parent process shares memory
// with the ranks. A run that dies leaves it for the next one.
std::string running_file(const Options& opts) {
  return std::filesystem::path(opts.results).replace_extension(".running").string();
}

// Set by --launcher mpirun when it starts the job again after a failure.
constexpr const char* kRelaunchedVariable = "CCT_TUNER_RELAUNCHED";

// Rank 0, with the results open: the candidate an earlier run died on (a
// rank crashed, was killed, or timed out elsewhere) is recorded as failed
// unless that run recorded it itself. A relaunch with nothing to record
// would only fail the same way again.
void take_over_note(JobProgress& note, const Options& opts,
                    std::map<std::string, ResultRow>& known) {
  const std::string culprit = note.culprit();
  if (opts.resume && !culprit.empty())
    record_failure(note,
                   "the earlier run under mpirun died while measuring it: a rank crashed, was "
                   "killed or hung (its messages say which)",
                   opts, known);
  else if (opts.resume && std::getenv(kRelaunchedVariable) != nullptr)
    throw UsageError(
        "relaunched after a failure, but no candidate was running when it came: the failure "
        "is not a candidate's (see the messages above); not relaunching again");
  note.clear();
}

// Rank 0 opens the results file (and holds the lock on its directory) and
// the note of the running candidate; every rank gets the rows of earlier
// runs (the search must see the same figures everywhere) or the same error.
OpenedResults open_results_everywhere(Options& opts, const std::string& fingerprint, int rank,
                                      std::optional<JobProgress>& note) {
  std::string error, rows;
  OpenedResults opened;
  if (rank == 0) try {
      opened = open_results(opts, fingerprint);
      note.emplace(1, running_file(opts));
      take_over_note(*note, opts, opened.known);
      rows = results_text(opts.results);
    } catch (const std::exception& e) {
      error = e.what();
    }
  if (error = broadcast_text(error, rank); !error.empty()) throw UsageError(error);
  opened.known.clear();
  if (opts.resume)
    for (ResultRow& row : parse_results(broadcast_text(rows, rank), "results of rank 0"))
      opened.known[row.key()] = std::move(row);
  return opened;
}

// Waits until every rank of the job is here, asleep between polls. The
// ranks outside a shape wait while the shape's ranks measure; spinning in
// an MPI call, as a blocking barrier or MPI_Comm_split does, they would
// take cores from the measured ranks (on an oversubscribed node, tuning
// 2 ranks of a 4-rank job on 2 cores, the figures doubled or worse).
void wait_asleep_for_all() {
  MPI_Request arrived;
  MPI_Ibarrier(MPI_COMM_WORLD, &arrived);
  int done = 0;
  auto nap = std::chrono::milliseconds(1);  // doubling to 50 ms: a shape measures for minutes
  for (MPI_Test(&arrived, &done, MPI_STATUS_IGNORE); !done;
       MPI_Test(&arrived, &done, MPI_STATUS_IGNORE)) {
    std::this_thread::sleep_for(nap);
    nap = std::min(2 * nap, std::chrono::milliseconds(50));
  }
}

// ", each pinned to a PU of its own (mpirun bound none): PUs 0,1".
std::string pinned_line(const std::vector<int>& pus) {
  std::ostringstream line;
  line << ", each pinned to a PU of its own (mpirun bound none): PUs ";
  for (std::size_t r = 0; r < pus.size(); ++r) line << (r > 0 ? "," : "") << pus[r];
  return line.str();
}

// The shape's ranks (comm) measure on the transport, then free comm.
void measure_shape(const Registry& registry, const Topology& topo, const TransportEntry& transport,
                   const Shape& shape, const Options& opts,
                   const std::map<std::string, ResultRow>& known, JobProgress* note,
                   const Shortlist* shortlist, MPI_Comm comm) {
  int rank = 0;  // in MPI_COMM_WORLD: its rank 0 reports
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  {  // what uses comm ends before it is freed
    const ShapePinning pinning(topo, comm);
    MpiBootstrap boot(comm);
    boot.set_timeout_s(opts.hang_limit_s());
    cct_error why{};
    if (transport.desc->probe(boot.c_view(), &why) != CCT_OK) {
      if (rank == 0)
        std::cout << "ccautotune: transport " << transport.desc->name << " skipped at "
                  << shape.nodes << " x " << shape.ranks_per_node << ": " << why.message << "\n";
    } else {
      if (rank == 0)
        std::cout << "ccautotune: " << transport.desc->name << " on " << shape.nodes
                  << " node(s) x " << shape.ranks_per_node << " rank(s)"
                  << (pinning.all_pinned() ? pinned_line(pinning.pus()) : "") << std::endl;
      if (is_device_transport(transport)) {
        measure_on_device(registry, transport, boot, topo, topo.bound_pu(),
                          placement_of(boot, registry), opts, known, note);
      } else {
        auto instance = std::make_shared<TransportInstance>(transport, boot);
        Communicator c(boot, instance, topo, topo.bound_pu(), placement_of(boot, registry));
        measure_space(registry, c, enumerate(registry, c, opts.filter), opts, known, note, nullptr,
                      shortlist);
      }
    }
  }
  MPI_Comm_free(&comm);
}

// The shortlist of a shape (shortlist.hpp), rank 0's (job_shortlist: made
// from the results so far, or kept by its first job; `kept`: rank 0's)
// handed to every rank as text.
std::optional<Shortlist> shared_shortlist(const Registry& registry, const Topology& topo,
                                          const TransportEntry& transport, const Shape& shape,
                                          const Options& opts, int world_rank,
                                          KeptShortlists* kept) {
  std::optional<Shortlist> made;
  if (world_rank == 0)
    made = job_shortlist(
        registry, opts, read_results(opts.results),
        [&](int nodes, int np) { return job_shape(topo, nodes, np); }, transport, shape.nodes,
        shape.nodes * shape.ranks_per_node, *kept);
  const std::string text = broadcast_text(made ? write_shortlist(*made) : "", world_rank);
  if (text.empty()) return std::nullopt;
  return read_shortlist(text);
}

// One shape on one transport: its ranks measure, the others wait asleep.
// Its waits give up after --hang-timeout (naming the ranks they waited
// for), so a rank that hangs fails the job instead of holding it for
// --timeout.
// Rank 0 (`times`: its job times, `shortlists`: its kept shortlists; null
// elsewhere) says before a shape its plan and after it what it took
// (plan_time.hpp); a device transport's shapes are not planned.
void run_shape(const Registry& registry, const Topology& topo, const TransportEntry& transport,
               const Shape& shape, const Layout& layout, const Options& opts,
               const std::map<std::string, ResultRow>& known, JobProgress* note, JobTimes* times,
               KeptShortlists* shortlists) {
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  const bool member = layout.in_shape(world_rank, shape);
  const std::optional<Shortlist> shortlist =
      shared_shortlist(registry, topo, transport, shape, opts, world_rank, shortlists);
  std::optional<TimedJob> timed;
  if (times && !is_device_transport(transport))
    timed.emplace(*times,
                  JobId{transport.desc->name, shape.nodes, shape.nodes * shape.ranks_per_node},
                  shortlist ? &*shortlist : nullptr, read_results(opts.results).size());
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, member ? 0 : MPI_UNDEFINED, world_rank, &comm);
  if (member)
    measure_shape(registry, topo, transport, shape, opts, known, note,
                  shortlist ? &*shortlist : nullptr, comm);
  wait_asleep_for_all();
  if (timed) timed->end(read_results(opts.results));
}

// The noise of MPI_COMM_WORLD rank 0's node, probed while every other rank
// sleeps (a rank spinning in MPI would count as other work). Other nodes
// are not probed.
Noise probe_on_rank0(int rank, int cores, const std::string& when) {
  MPI_Barrier(MPI_COMM_WORLD);
  Noise noise;
  if (rank == 0)
    noise = announce(probe_noise(cores), when);
  else
    std::this_thread::sleep_for(std::chrono::duration<double>(1.5 * kProbeSeconds));
  MPI_Barrier(MPI_COMM_WORLD);
  return noise;
}

// Twice the largest node count measured, doubling up to 16 times it: how
// far a profile tuned on few nodes is stretched by the model, beyond which
// the largest count's rules serve (Selector).
std::vector<int> default_predicted_nodes(int measured) {
  std::vector<int> counts;
  for (int n = 2 * measured; n <= 16 * measured; n *= 2) counts.push_back(n);
  return counts;
}

// The shapes a profile of this machine predicts where they were not
// measured (predict.hpp): communicators on one node of the sizes a run on
// one node measures, and across nodes the node counts asked for, else the
// larger ones a job tuned on `nodes` nodes may have. topo outlives it.
PredictionPlan prediction_plan(const Options& opts, const Topology& topo, int nodes) {
  return {
      .shape = [&topo](int n, int np) { return job_shape(topo, n, np); },
      .nps = predicted_nps(opts.predict_nps, topo.cores()),
      .nodes = opts.predict_nodes.empty() ? default_predicted_nodes(nodes) : opts.predict_nodes};
}

void add_once(std::vector<int>& values, int value) {
  if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
}

// Flags of a run on one machine mean nothing here.
void check_cluster_options(const Options& opts) {
  if (!opts.nps.empty())
    throw UsageError("--np: under mpirun the shapes come from --nodes and --ranks-per-node");
  if (!opts.fabric.empty())
    throw UsageError("--fabric: a simulated platform is tuned without mpirun");
  if (opts.launch_mpirun) throw UsageError("--launcher mpirun: this run was started by mpirun");
  if (opts.plan)
    throw UsageError("--plan: plans a run of ccautotune's own launcher, not under mpirun");
}

int tune_cluster(Options& opts, int rank) {
  check_cluster_options(opts);
  Registry registry;
  registry.load_default();
  check_names(registry, opts.filter);
  const Topology topo = Topology::discover();
  MpiBootstrap world(MPI_COMM_WORLD);
  check_same_machines(world, topo.fingerprint());
  const Layout layout = layout_of(world);
  const std::vector<int> predicted = predicted_nps(opts.predict_nps, topo.cores());
  opts.confirm_shapes = confirmed_shapes(opts, layout, predicted);
  const std::vector<Shape> shapes = shapes_of(opts, layout);
  int most_per_node = 1, most_ranks = 1;
  for (const Shape& s : shapes) {
    most_per_node = std::max(most_per_node, s.ranks_per_node);
    most_ranks = std::max(most_ranks, s.nodes * s.ranks_per_node);
  }
  check_buffer_memory(opts, most_ranks, most_per_node, rank == 0);  // the same on every rank
  std::optional<JobProgress> note;                                  // rank 0's
  OpenedResults results = open_results_everywhere(opts, topo.fingerprint(), rank, note);
  if (rank == 0)
    std::cout << "ccautotune: " << world.size() << " ranks on " << layout.nodes << " node(s) of "
              << topo.summary() << ", fingerprint " << topo.fingerprint() << "; results in "
              << opts.results << std::endl;
  const Noise before = probe_on_rank0(rank, topo.cores(), "before tuning");
  std::optional<JobTimes> times;             // rank 0's, of this job's pass
  std::optional<KeptShortlists> shortlists;  // rank 0's
  if (rank == 0) {
    times.emplace(false, opts.measure.warmup);
    keep_job_times(opts.results, opts.resume, {&*times}, opts.search.reconfirm ? 2 : 1);
    shortlists.emplace(opts.results, opts.resume);
  }
  try {
    for (const TransportEntry& transport : registry.transports())
      for (const Shape& shape : shapes)
        if (!is_simulated(transport) && tuned_on(opts, transport, shape))
          run_shape(registry, topo, transport, shape, layout, opts, results.known,
                    note ? &*note : nullptr, times ? &*times : nullptr,
                    shortlists ? &*shortlists : nullptr);
  } catch (const std::exception& e) {
    // Rank 0 saw its candidate fail (a wait that timed out names the rank
    // it waited for): recorded with that reason, for the next run to skip.
    if (note) record_failure(*note, e.what(), opts, results.known);
    throw;
  }
  if (note) std::filesystem::remove(running_file(opts));
  opts.noise = {before, probe_on_rank0(rank, topo.cores(), "after tuning")};
  if (rank != 0) return 0;
  MachineInfo machine = describe_machine(topo, 1);
  opts.nodes.clear(), opts.ranks_per_node.clear();
  for (const Shape& s : shapes) {
    machine.nodes = std::max(machine.nodes, s.nodes);
    machine.ranks_per_node = std::max(machine.ranks_per_node, s.ranks_per_node);
    add_once(opts.nodes, s.nodes), add_once(opts.ranks_per_node, s.ranks_per_node);
  }
  const PredictionPlan plan = prediction_plan(opts, topo, machine.nodes);
  return write_profile(registry, machine, opts, &plan) ? 0 : 1;
}

}  // namespace

bool started_by_mpirun() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

namespace {

// mpirun [--allow-run-as-root] [-x CCT_...] [--hostfile H] [ARGS..]
//        <this program> <argv without the launcher's flags>
std::vector<std::string> mpirun_command(const Options& opts, int argc, char** argv) {
  std::vector<std::string> args{"mpirun"};
  if (geteuid() == 0) args.push_back("--allow-run-as-root");
  for (char** env = environ; *env != nullptr; ++env)
    if (std::strncmp(*env, "CCT_", 4) == 0)
      args.insert(args.end(), {"-x", std::string(*env).substr(0, std::strcspn(*env, "="))});
  if (!opts.hostfile.empty()) args.insert(args.end(), {"--hostfile", opts.hostfile});
  std::istringstream extra(opts.mpirun_args);
  for (std::string word; extra >> word;) args.push_back(word);
  args.push_back(std::filesystem::read_symlink("/proc/self/exe"));
  // The ranks get the command line without the launcher's flags, which come
  // as "--flag VALUE" or "--flag=VALUE".
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const std::string flag = arg.substr(0, arg.find('='));
    if (flag != "--launcher" && flag != "--hostfile" && flag != "--mpirun-args")
      args.push_back(arg);
    else if (flag == arg)
      ++i;  // its value follows
  }
  return args;
}

// Runs the command to its end: its exit status (128 + the signal that
// killed it), or -1 when it could not start (said on stderr).
int run_to_end(std::vector<std::string> args) {
  std::vector<char*> c_args;
  for (std::string& a : args) c_args.push_back(a.data());
  c_args.push_back(nullptr);
  const pid_t child = fork();
  if (child == 0) {
    execvp(c_args[0], c_args.data());
    std::cerr << "ccautotune: --launcher mpirun: cannot run mpirun: " << std::strerror(errno)
              << "\n";
    _exit(127);
  }
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child) {
    std::cerr << "ccautotune: --launcher mpirun: " << std::strerror(errno) << "\n";
    return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// A job that fails is started again with --resume: its rank 0 records the
// candidate that was running as failed (take_over_note) and goes on past
// it, as the local launcher does; one that fails with nothing to record
// ends with status 2 and is not started again.
int run_job_under_mpirun(std::vector<std::string> args) {
  for (int launch = 0;; ++launch) {
    const int status = run_to_end(args);
    if (status < 0 || status == 127) return 2;      // mpirun could not run (said)
    if (status == 0 || status == 2) return status;  // done, or a bad argument
    if (launch == kMostRelaunches) {
      std::cerr << "ccautotune: the job under mpirun failed " << launch + 1
                << " times; giving up (the rows measured are in the results file)\n";
      return status;
    }
    std::cerr << "ccautotune: the job under mpirun failed (exit status " << status
              << "); starting it again with --resume, past the candidate it was running"
              << " (relaunch " << launch + 1 << " of at most " << kMostRelaunches << ")\n";
    if (launch == 0) {
      setenv(kRelaunchedVariable, "1", 1);
      args.insert(args.begin() + 1, {"-x", kRelaunchedVariable});
      if (std::find(args.begin(), args.end(), "--resume") == args.end()) args.push_back("--resume");
    }
  }
}

// What the outside check found, for the run's output and the profile's
// tuning record.
std::string outside_summary(const OutsideResult& found, const OutsideRun& how) {
  std::ostringstream text;
  text << "np " << found.np << ", osu_style_bench 1 B - " << format_bytes(how.max_bytes) << ", "
       << found.runs << " runs a side alternated: the profile's medians " << std::setprecision(3)
       << found.geometric_mean << " of the library's alone (geometric mean of "
       << found.figures.size() << " points); ";
  if (found.levels.threshold > 0)
    text << "the probe's latency at two levels (split at " << found.levels.threshold * 1e6
         << " us), the slow one under " << std::lround(100 * found.slow_share_library)
         << "% of the library's points and " << std::lround(100 * found.slow_share_profile)
         << "% of the profile's, each pick judged at the level where it does worst; the "
         << found.kept << " points kept on the library " << found.calibration[0] << " and "
         << found.calibration[1] << " of it at the two levels";
  else
    text << "the " << found.kept << " points kept on the library " << found.calibration[0]
         << " of it";
  text << ", the drift the picks' figures are divided by; " << found.picks
       << " picks not the library's, " << found.refuted
       << " of them not 5% faster than the library alone";
  return text.str();
}

// After the second job: the outside check (outside_check.hpp), then the
// profile made again with the sizes it refuted given back to the library.
// Only on one machine: across a hostfile's hosts or emulated nodes the
// benchmark would not run the communicators the profile was checked for
// (said). A check that cannot run leaves the profile and the results as
// they were and ends with status 1, saying why.
int check_from_outside(Options opts) {
  if (opts.outside_runs == 0) return 0;
  if (!opts.hostfile.empty() || std::getenv("CCT_VIRTUAL_NODES") != nullptr) {
    std::cout << "ccautotune: no outside check across nodes (--hostfile, CCT_VIRTUAL_NODES): "
                 "tools/interposer_runs.py times a profile so there\n";
    return 0;
  }
  Registry registry;
  registry.load_default();
  const Topology topo = Topology::discover();
  opts.resume = true;  // the results are this run's
  const OpenedResults opened = open_results(opts, topo.fingerprint());
  const std::string profile = profile_beside(opts.results);
  const OutsideRun how{.runs = opts.outside_runs,
                       .max_bytes = std::min<int64_t>(opts.filter.max_bytes, 1 << 20),
                       .mpirun_args = opts.mpirun_args,
                       .timeout_s = opts.timeout_s};
  try {
    const OutsideResult found = check_outside(profile, registry, how);
    merge_outside(outside_path(opts.results), found.figures);
    const std::string summary = outside_summary(found, how);
    std::cout << "ccautotune: outside check: " << summary
              << "\nccautotune: the profile made again, the sizes of tuned rules among them given "
                 "back to the library:"
              << std::endl;
    const int nodes = load_profile(profile, &registry).machine.nodes;
    const PredictionPlan plan = prediction_plan(opts, topo, nodes);
    return rewrite_profile(registry, opts, &plan, summary) ? 0 : 1;
  } catch (const Error& e) {
    std::cerr << "ccautotune: outside check: " << e.what()
              << "\nccautotune: the profile stands as the tuner wrote it: " << profile
              << " (--outside-runs 0 skips the check)\n";
    return 1;
  }
}

}  // namespace

// The job, then (unless --single-job, or this is that job) the second job,
// which times each size's picks again in fresh processes (search.hpp, step
// 3), on the rows the first one wrote, then the outside check.
int relaunch_under_mpirun(const Options& opts, int argc, char** argv) {
  std::vector<std::string> args = mpirun_command(opts, argc, argv);
  const int status = run_job_under_mpirun(args);
  if (status != 0 || opts.search.reconfirm) return status;
  if (!opts.single_job) {
    std::cout << "ccautotune: " << kSecondJob << std::endl;
    unsetenv(kRelaunchedVariable);  // the second job starts afresh, not after a failure
    for (const char* flag : {"--resume", "--reconfirm"})
      if (std::find(args.begin(), args.end(), flag) == args.end()) args.push_back(flag);
    if (const int second = run_job_under_mpirun(args); second != 0) return second;
  }
  return check_from_outside(opts);
}

int run_on_cluster(Options opts, int* argc, char*** argv) {
  MPI_Init(argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int status = 0;
  try {
    status = tune_cluster(opts, rank);
  } catch (const UsageError& e) {
    if (rank == 0) std::cerr << "ccautotune: " << e.what() << "\n";
    status = 2;
  } catch (const std::exception& e) {
    std::cerr << "ccautotune (rank " << rank << "): " << e.what() << "; aborting the job\n";
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}

}  // namespace cct::tuner
