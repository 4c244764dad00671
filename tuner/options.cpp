#include "tuner/options.hpp"

#include <algorithm>
#include <optional>
#include <sstream>

#include "cct/error.hpp"
#include "cct/profile.hpp"
#include "cct/units.hpp"

namespace cct::tuner {

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
    "Beyond one node (see the README, \"Tuning a cluster\"): started by mpirun, every\n"
    "rank is a ccautotune process and the job's nodes (CCT_VIRTUAL_NODES=k: k blocks\n"
    "of consecutive ranks) are tuned per shape, nodes x ranks per node; between\n"
    "nodes the transport is mpi, with shm inside each node. --np does not apply.\n"
    "  --nodes N,N,..       node counts of the shapes (default: all the job's nodes)\n"
    "  --ranks-per-node N,..  ranks per node of the shapes (default: 1, 2, 4, .. up\n"
    "                       to the fewest ranks any node has, and that; no shape of\n"
    "                       one rank)\n"
    "  --launcher mpirun    start that job: run mpirun with this command line\n"
    "  --hostfile FILE      with --launcher mpirun: the hosts, passed to mpirun\n"
    "  --mpirun-args \"A\"    with --launcher mpirun: more arguments for mpirun\n"
    "                       (e.g. \"-np 8 --map-by node\")\n"
    "\n"
    "Exit status: 0, 1 when a job failed (the others still ran), 2 for a bad argument.\n";

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

std::vector<int> default_nps(int cores) {
  std::vector<int> nps;
  for (int n = 2; n <= cores; n *= 2) nps.push_back(n);
  if (nps.empty() || nps.back() != std::max(cores, 2)) nps.push_back(std::max(cores, 2));
  return nps;
}

void check_names(const Registry& registry, const SpaceFilter& filter) {
  for (const std::string& name : filter.transports)
    if (!registry.find_transport(name))
      throw UsageError("--transports: no transport plugin '" + name + "' (see ccinfo)");
  for (const std::string& name : filter.algorithms)
    if (std::none_of(registry.algorithms().begin(), registry.algorithms().end(),
                     [&](const AlgorithmEntry& a) { return name == a.desc->name; }))
      throw UsageError("--algorithms: no algorithm plugin '" + name + "' (see ccinfo)");
}

namespace {

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

bool launcher_arg(const std::string& text) {
  if (text == "mpirun") return true;
  if (text == "local") return false;
  throw UsageError("--launcher: expected local or mpirun, not '" + text + "'");
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
  else if (flag == "--nodes")
    for (const std::string& n : split_list(value)) opts.nodes.push_back(int_arg(flag, n));
  else if (flag == "--ranks-per-node")
    for (const std::string& n : split_list(value)) opts.ranks_per_node.push_back(int_arg(flag, n));
  else if (flag == "--launcher")
    opts.launch_mpirun = launcher_arg(value);
  else if (flag == "--hostfile")
    opts.hostfile = value;
  else if (flag == "--mpirun-args")
    opts.mpirun_args = value;
  else
    throw UsageError("unknown argument '" + flag + "'");
}

}  // namespace

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
  for (int n : opts.nodes)
    if (n < 1) throw UsageError("--nodes: node counts start at 1");
  for (int n : opts.ranks_per_node)
    if (n < 1) throw UsageError("--ranks-per-node: rank counts start at 1");
  if (!opts.launch_mpirun && !(opts.hostfile.empty() && opts.mpirun_args.empty()))
    throw UsageError("--hostfile and --mpirun-args go with --launcher mpirun");
  for (const std::string& name : opts.filter.collectives)
    if (cct_collective c; !cct::parse_collective(name, &c))
      throw UsageError("--collectives: unknown collective '" + name + "'");
  return opts;
}

}  // namespace cct::tuner
