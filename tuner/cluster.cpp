#include "tuner/cluster.hpp"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cct/communicator.hpp"
#include "cct/error.hpp"
#include "cct/registry.hpp"
#include "cct/simulate.hpp"
#include "cct/topology.hpp"
#include "mpi_bootstrap.hpp"
#include "tuner/job.hpp"
#include "tuner/machine.hpp"
#include "tuner/noise.hpp"
#include "tuner/output.hpp"

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

std::vector<int> powers_of_two_to(int most) {
  std::vector<int> values;
  for (int n = 1; n < most; n *= 2) values.push_back(n);
  values.push_back(most);
  return values;
}

// --nodes x --ranks-per-node, checked against what the job has.
std::vector<Shape> shapes_of(const Options& opts, const Layout& layout) {
  const std::vector<int> nodes = opts.nodes.empty() ? std::vector<int>{layout.nodes} : opts.nodes;
  const std::vector<int> per_node =
      opts.ranks_per_node.empty() ? powers_of_two_to(layout.fewest_per_node) : opts.ranks_per_node;
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
  return shapes;
}

// The transports of a shape: those named, else the one the runtime uses
// for such a communicator (shm on one node, mpi between nodes).
bool tuned_on(const Options& opts, const std::string& transport, const Shape& shape) {
  if (!opts.filter.transports.empty()) return selected(opts.filter.transports, transport);
  return transport == (shape.nodes > 1 ? "mpi" : "shm");
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

// Rank 0 opens the results file (and holds the lock on its directory);
// every rank gets the rows of earlier runs (the search must see the same
// figures everywhere) or the same error.
OpenedResults open_results_everywhere(Options& opts, const std::string& fingerprint, int rank) {
  std::string error, rows;
  OpenedResults opened;
  if (rank == 0) try {
      opened = open_results(opts, fingerprint);
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

// One shape on one transport: its ranks measure, the others wait.
void run_shape(const Registry& registry, const Topology& topo, const TransportEntry& transport,
               const Shape& shape, const Layout& layout, const Options& opts,
               const std::map<std::string, ResultRow>& known) {
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  const bool member = layout.in_shape(world_rank, shape);
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, member ? 0 : MPI_UNDEFINED, world_rank, &comm);
  if (!member) return;
  {
    MpiBootstrap boot(comm);
    cct_error why{};
    if (transport.desc->probe(boot.c_view(), &why) != CCT_OK) {
      if (world_rank == 0)
        std::cout << "ccautotune: transport " << transport.desc->name << " skipped at "
                  << shape.nodes << " x " << shape.ranks_per_node << ": " << why.message << "\n";
    } else {
      if (world_rank == 0)
        std::cout << "ccautotune: " << transport.desc->name << " on " << shape.nodes
                  << " node(s) x " << shape.ranks_per_node << " rank(s)" << std::endl;
      auto instance = std::make_shared<TransportInstance>(transport, boot);
      Communicator c(boot, instance, topo, topo.bound_pu(), placement_of(boot, registry));
      measure_space(registry, c, enumerate(registry, c, opts.filter), opts, known);
    }
  }
  MPI_Comm_free(&comm);
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
  const std::vector<Shape> shapes = shapes_of(opts, layout);
  const OpenedResults results = open_results_everywhere(opts, topo.fingerprint(), rank);
  if (rank == 0)
    std::cout << "ccautotune: " << world.size() << " ranks on " << layout.nodes << " node(s) of "
              << topo.summary() << ", fingerprint " << topo.fingerprint() << "; results in "
              << opts.results << std::endl;
  const Noise before = probe_on_rank0(rank, topo.cores(), "before tuning");
  for (const TransportEntry& transport : registry.transports())
    for (const Shape& shape : shapes)
      if (!is_simulated(transport) && tuned_on(opts, transport.desc->name, shape))
        run_shape(registry, topo, transport, shape, layout, opts, results.known);
  opts.noise = {before, probe_on_rank0(rank, topo.cores(), "after tuning")};
  if (rank != 0) return 0;
  MachineInfo machine = describe_machine(topo, 1);
  opts.nodes.clear(), opts.ranks_per_node.clear();
  for (const Shape& s : shapes) {
    machine.nodes = std::max(machine.nodes, s.nodes);
    machine.ranks_per_node = std::max(machine.ranks_per_node, s.ranks_per_node);
    add_once(opts.nodes, s.nodes), add_once(opts.ranks_per_node, s.ranks_per_node);
  }
  return write_profile(registry, machine, opts) ? 0 : 1;
}

}  // namespace

bool started_by_mpirun() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

int relaunch_under_mpirun(const Options& opts, int argc, char** argv) {
  std::vector<std::string> args{"mpirun"};
  if (geteuid() == 0) args.push_back("--allow-run-as-root");
  for (char** env = environ; *env != nullptr; ++env)
    if (std::strncmp(*env, "CCT_", 4) == 0)
      args.insert(args.end(), {"-x", std::string(*env).substr(0, std::strcspn(*env, "="))});
  if (!opts.hostfile.empty()) args.insert(args.end(), {"--hostfile", opts.hostfile});
  std::istringstream extra(opts.mpirun_args);
  for (std::string word; extra >> word;) args.push_back(word);
  args.push_back(std::filesystem::read_symlink("/proc/self/exe"));  // mpirun's, once exec'ed
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
  std::vector<char*> c_args;
  for (std::string& a : args) c_args.push_back(a.data());
  c_args.push_back(nullptr);
  execvp("mpirun", c_args.data());
  std::cerr << "ccautotune: --launcher mpirun: cannot run mpirun: " << std::strerror(errno) << "\n";
  return 2;
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
