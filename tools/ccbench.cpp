// ccbench: the runtime's dispatched collectives against the MPI library's
// own, measured side by side in one run, printed as ratios ours/MPI.
//
//   mpirun -np 2 ccbench [--min-bytes 1] [--max-bytes 1M] [--collectives a,b]
//                        [--transports shm,mpi] [--strided] [--counts skewed]
//   mpirun -np 4 ccbench --compare [--algorithms a,b,...] [...]
//   CCT_VIRTUAL_NODES=2 mpirun -np 4 ccbench --compare [...]
//
// Every contender is timed the same way: per size, repetitions alternate
// one call of each (in an order drawn anew each repetition), each preceded
// by MPI_Barrier; each rank times its own calls; a repetition's figure is
// the maximum over ranks; the point's figure is the median. Without --compare the contenders are
// MPI and the runtime (its profile's choice) on each transport named, side by side; with it, MPI
// and every registered algorithm of the collective with its default parameters, run as plans
// directly (seed algorithms beside the baselines), on each transport in turn. The default transport
// is the runtime's own: shm on one node, mpi between nodes (CCT_VIRTUAL_NODES=k makes k nodes of
// one machine), with shm inside each node for the hierarchical algorithms. With --strided, the data
// of bcast, gather, scatter, allgather and alltoall is every other double (a resized MPI_DOUBLE of
// extent 16) on both sides: MPI's own handling of that type against the interposer's path
// (calls.hpp: pack, the runtime's call on bytes, unpack). From 64 KiB each row also shows the
// machine's copy limit for its size, timed in the same loop: `copy`, one core copying the bytes
// once; `split`, every rank's core copying its share at once. The vector collectives' blocks are
// equal, or with --counts skewed spread as cct/count_pattern.hpp says, at the same size key. A
// benchmark, not a test: nothing is asserted.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bench_timing.hpp"
#include "calls.hpp"
#include "cct/cli/validators.hpp"
#include "cct/collectives.hpp"
#include "cct/count_pattern.hpp"
#include "cct/error.hpp"
#include "cct/session.hpp"
#include "cct/units.hpp"
#include "mpi_bootstrap.hpp"
#include "mpi_calls.hpp"
#include "profile_check.hpp"
#include "tuner/measure.hpp"

namespace {

using cct::bench::measure;
using cct::bench::repetitions;

struct Options {
  int64_t min_bytes = 1, max_bytes = 1 << 20;
  std::vector<cct_collective> collectives;
  bool compare = false;
  std::vector<std::string> algorithms;  // --compare only these (empty: all)
  std::vector<std::string> transports;  // empty: the runtime's own choice
  bool strided = false;                 // data as every other double, through the interposer
  std::string check;                    // --check: the tuner's results CSV
  cct::CountPattern counts = cct::CountPattern::kEqual;  // the vector collectives' blocks
};

bool is_reduction(cct_collective c) {
  return cct::collective_info(c).reduction;
}

// One collective run by MPI and by the runtime of each session on the same
// buffers.
struct Bench {
  std::vector<std::unique_ptr<cct::Session>> sessions;  // one per transport
  MPI_Comm comm;
  int rank, size;
  std::vector<unsigned char> send, recv;
  std::vector<unsigned char> copy_from, copy_to;  // the copy limit's
  MPI_Datatype strided = MPI_DATATYPE_NULL;       // --strided only

  cct::CountPattern counts;
  cct::PatternBlocks blocks;  // the vector collectives' arrays, in that pattern

  cct_coll_args call(cct_collective c, const void* s, void* r, int count);
  void mpi(cct_collective c, int count, MPI_Datatype t);
  void ours(cct::Runtime& rt, cct_collective c, int count);
  void interposed(cct::Runtime& rt, cct_collective c, int count, MPI_Datatype t);
};

// A call of c on count elements (the average block, for the vector
// collectives): int32 sums for the reductions, bytes for the others.
cct_coll_args Bench::call(cct_collective c, const void* s, void* r, int count) {
  cct_coll_args args = cct::make_call(c, s, r, static_cast<std::size_t>(count),
                                      is_reduction(c) ? CCT_INT32 : CCT_UINT8, CCT_SUM, 0);
  return blocks.fill(args, size, rank, counts);
}

// MPI's own call: count elements of t (MPI_INT for the reductions, MPI_BYTE
// or --strided's type for the others).
void Bench::mpi(cct_collective c, int count, MPI_Datatype t) {
  cct::call_library(call(c, send.data(), recv.data(), count), t, comm);
}

void Bench::ours(cct::Runtime& rt, cct_collective c, int count) {
  rt.run(call(c, send.data(), recv.data(), count));
}

// The interposer's path for the collectives that take any datatype.
void Bench::interposed(cct::Runtime& rt, cct_collective c, int count, MPI_Datatype t) {
  namespace mpi = cct::interposer;
  void *s = send.data(), *r = recv.data();
  const char* left_to_library = nullptr;
  switch (c) {
    case CCT_BCAST: left_to_library = mpi::bcast(rt, r, count, t, 0); break;
    case CCT_GATHER: left_to_library = mpi::gather(rt, s, count, t, r, count, t, 0); break;
    case CCT_SCATTER: left_to_library = mpi::scatter(rt, s, count, t, r, count, t, 0); break;
    case CCT_ALLGATHER: left_to_library = mpi::allgather(rt, s, count, t, r, count, t); break;
    case CCT_ALLTOALL: left_to_library = mpi::alltoall(rt, s, count, t, r, count, t); break;
    default: throw cct::Error("--strided has no reductions or barrier");
  }
  if (left_to_library != nullptr && left_to_library != mpi::kMovesNothing)
    Bench::mpi(c, count, t);  // as the interposer does
}

// Every other double: 8 bytes of data in each 16.
MPI_Datatype strided_double() {
  MPI_Datatype t;
  MPI_Type_create_resized(MPI_DOUBLE, 0, 16, &t);
  MPI_Type_commit(&t);
  return t;
}

std::string algorithm_of(Bench& b, cct::Runtime& rt, cct_collective c, int count) {
  return rt.choice_for(b.call(c, nullptr, nullptr, count)).algorithm->desc->name;
}

// The message sizes of c: powers of two from min to max, in whole elements
// (reductions move int32s, --strided doubles); barrier only 0.
std::vector<int64_t> sizes_of(cct_collective c, const Options& o) {
  if (!cct::collective_info(c).sized) return {0};
  const int64_t element = is_reduction(c) ? 4 : o.strided ? 8 : 1;
  std::vector<int64_t> sizes;
  for (int64_t b = std::max(o.min_bytes, element); b <= o.max_bytes; b *= 2)
    sizes.push_back(b / element * element);
  return sizes;
}

// MPI's call and each session's on one size: the runtime's own, or with
// --strided, the interposer's path on the strided type.
std::vector<std::function<void()>> contenders_of(Bench& b, cct_collective c, int64_t bytes,
                                                 const Options& o) {
  const bool reduction = is_reduction(c);
  const int count = static_cast<int>(reduction ? bytes / 4 : o.strided ? bytes / 8 : bytes);
  const MPI_Datatype type = o.strided ? b.strided : reduction ? MPI_INT : MPI_BYTE;
  std::vector<std::function<void()>> contenders{[&b, c, count, type] { b.mpi(c, count, type); }};
  for (auto& s : b.sessions) {
    cct::Runtime& rt = s->runtime();
    if (o.strided)
      contenders.push_back([&b, &rt, c, count, type] { b.interposed(rt, c, count, type); });
    else
      contenders.push_back([&b, &rt, c, count] { b.ours(rt, c, count); });
  }
  return contenders;
}

// The machine's copy limit beside each large-message row, timed in the
// same loop as the collectives: `bytes` copied once by one core (rank 0
// alone: what a single-copy transfer costs at least), and split over every
// rank's core at once (each copies bytes / size; the slowest counts: what
// cores that share the copying reach).
constexpr int64_t kCopyLimitFrom = 64 * 1024;

std::vector<std::function<void()>> copy_limits(Bench& b, int64_t bytes) {
  const auto n = static_cast<std::size_t>(bytes);
  return {[&b, n] {
            if (b.rank == 0) std::memcpy(b.copy_to.data(), b.copy_from.data(), n);
          },
          [&b, n] { std::memcpy(b.copy_to.data(), b.copy_from.data(), n / b.size); }};
}

// One line per size: MPI's time, the copy limit (from kCopyLimitFrom; "-"
// below), then per transport the runtime's time, its ratio to MPI's and
// the algorithm it chose.
void run_collective(Bench& b, cct_collective c, const Options& o) {
  const bool reduction = is_reduction(c);
  for (int64_t bytes : sizes_of(c, o)) {
    std::vector<std::function<void()>> contenders = contenders_of(b, c, bytes, o);
    const bool limit = bytes >= kCopyLimitFrom;
    if (limit) std::ranges::move(copy_limits(b, bytes), std::back_inserter(contenders));
    const std::vector<double> t = measure(b.comm, contenders, repetitions(bytes));
    if (b.rank != 0) continue;
    const int count = static_cast<int>(reduction ? bytes / 4 : bytes);  // as the runtime sees it
    std::printf("%-10s %8s %10.2f", cct::collective_name(c), cct::format_bytes(bytes).c_str(),
                t[0] * 1e6);
    const std::size_t copies = b.sessions.size() + 1;  // where the copy limit's figures start
    if (limit)
      std::printf(" %9.2f %9.2f", t[copies] * 1e6, t[copies + 1] * 1e6);
    else
      std::printf(" %9s %9s", "-", "-");
    for (std::size_t k = 0; k < b.sessions.size(); ++k)
      std::printf(" %10.2f %6.2f %-18s", t[k + 1] * 1e6, t[k + 1] / t[0],
                  algorithm_of(b, b.sessions[k]->runtime(), c, count).c_str());
    std::printf("\n");
  }
}

// --compare: one plan per registered algorithm of c that the filter keeps,
// with its default parameters, prepared once (collectively, in registry
// order, the same on every rank). One that refuses this communicator when
// prepared (the multinode ones on one node) is left out, with its reason.
std::vector<std::unique_ptr<cct::Plan>> plans_of(const cct::Session& s, cct_collective c,
                                                 const Options& o, int rank) {
  std::vector<std::unique_ptr<cct::Plan>> plans;
  const uint64_t granted = s.communicator().capabilities();
  for (const cct::AlgorithmEntry& alg : s.registry().algorithms()) {
    if (alg.desc->collective != c || (alg.desc->required_caps & ~granted) != 0 ||
        (!o.algorithms.empty() &&
         std::find(o.algorithms.begin(), o.algorithms.end(), alg.desc->name) == o.algorithms.end()))
      continue;
    try {
      plans.push_back(std::make_unique<cct::Plan>(alg, s.communicator(), alg.default_params()));
    } catch (const cct::Error& e) {
      if (rank == 0) std::printf("ccbench: left out %s\n", e.what());
    }
  }
  return plans;
}

// One line per size: MPI's time, then each plan's time as a ratio to it
// ("-" where the algorithm cannot run that call).
void compare_collective(Bench& b, const cct::Session& s, cct_collective c, const Options& o) {
  const bool reduction = is_reduction(c);
  const std::vector<std::unique_ptr<cct::Plan>> plans = plans_of(s, c, o, b.rank);
  if (b.rank == 0) {
    std::printf("\n%-8s %10s",
                (cct::collective_name(c) + std::string(" ") +
                 s.communicator().transport().entry().desc->name)
                    .c_str(),
                "MPI us");
    for (const auto& plan : plans) std::printf(" %12.12s", plan->algorithm().desc->name);
    std::printf("\n");
  }
  for (int64_t bytes : sizes_of(c, o)) {
    const int count = static_cast<int>(reduction ? bytes / 4 : bytes);
    const cct_coll_args args = b.call(c, b.send.data(), b.recv.data(), count);
    std::vector<std::function<void()>> contenders{
        [&] { b.mpi(c, count, reduction ? MPI_INT : MPI_BYTE); }};
    std::vector<bool> runs;
    for (const auto& plan : plans) {
      runs.push_back(
          cct::why_unusable(plan->algorithm(), s.communicator(), args, plan->params()).empty());
      if (runs.back()) contenders.push_back([&] { plan->run(args); });
    }
    const std::vector<double> t = measure(b.comm, contenders, repetitions(bytes));
    if (b.rank != 0) continue;
    std::printf("%-8s %10.2f", cct::format_bytes(bytes).c_str(), t[0] * 1e6);
    for (std::size_t k = 0, next = 1; k < plans.size(); ++k)
      runs[k] ? std::printf(" %12.2f", t[next++] / t[0]) : std::printf(" %12s", "-");
    std::printf("\n");
  }
}

// One session per transport named, or the runtime's own choice: shm on one
// node, mpi between nodes.
std::vector<std::unique_ptr<cct::Session>> open_sessions(const Options& o) {
  std::vector<std::unique_ptr<cct::Session>> sessions;
  for (std::size_t i = 0; i < std::max<std::size_t>(1, o.transports.size()); ++i) {
    auto boot = std::make_unique<cct::MpiBootstrap>(MPI_COMM_WORLD);
    const std::string transport =
        o.transports.empty() ? (boot->nodes() > 1 ? "mpi" : "shm") : o.transports[i];
    sessions.push_back(std::make_unique<cct::Session>(std::move(boot),
                                                      cct::Session::Binding::kBindToPu, transport));
  }
  return sessions;
}

// --check on each session's transport, with a summary line per transport.
void check_profiles(Bench& b, const std::string& results) {
  for (auto& s : b.sessions) {
    const cct::bench::CheckCount n = cct::bench::check_profile(*s, b.comm, results, b.send, b.recv);
    if (b.rank == 0)
      std::printf(
          "ccbench --check (%s): the runner-up was more than 5%% faster at %d of %d sizes\n",
          s->communicator().transport().entry().desc->name, n.flagged, n.checked);
  }
}

void print_header(const Bench& b, const Options& o) {
  const unsigned cores = std::thread::hardware_concurrency();
  const cct::Communicator& comm = b.sessions.front()->communicator();
  std::printf(
      "ccbench: %d ranks on %d node(s), %u hardware threads%s; times in us (median\n"
      "over repetitions of the max over ranks)%s\n",
      b.size, comm.nodes(), cores, b.size > static_cast<int>(cores) ? " (OVERSUBSCRIBED)" : "",
      o.compare ? "; algorithm columns are ratios algorithm/MPI" : "");
  if (o.strided)
    std::printf(
        "--strided: the data is every other double on every rank; MPI's own call with that\n"
        "type against the interposer's (pack, the runtime's call on bytes, unpack)\n");
  std::printf("vector collectives: %s blocks\n", cct::count_pattern_name(o.counts));
  if (o.compare || !o.check.empty()) return;
  std::printf("%-10s %8s %10s %9s %9s", "collective", "bytes", "MPI", "copy", "split");
  for (const auto& s : b.sessions)
    std::printf(" %10s %6s %-18s", s->communicator().transport().entry().desc->name, "/MPI",
                "algorithm");
  std::printf("\n");
}

const char* const kDescription =
    "Run under mpirun: mpirun -np N ccbench [OPTIONS]\n"
    "Sizes are message sizes as profiles count them (e.g. 1, 4k, 1M), powers of two.\n"
    "Without --compare: MPI's own call against the runtime's choice (its profile).\n"
    "From 64 KiB each row shows the machine's copy limit for its size: `copy`, one\n"
    "core copying the bytes once; `split`, every rank's core copying its share.\n";

// A collective's name on the command line, as the number of its
// cct_collective for CLI11 to store.
CLI::Validator collective_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        cct_collective c;
        if (!cct::parse_collective(text, &c)) return "unknown collective '" + text + "'";
        text = std::to_string(static_cast<int>(c));
        return "";
      },
      "");
}

void add_options(CLI::App& app, Options& o) {
  app.add_option("--min-bytes", o.min_bytes, "smallest message (default 1)")
      ->transform(cct::cli::byte_size())
      ->check(cct::cli::positive())
      ->type_name("SIZE");
  app.add_option("--max-bytes", o.max_bytes, "largest message (default 1M)")
      ->transform(cct::cli::byte_size())
      ->check(cct::cli::positive())
      ->type_name("SIZE");
  app.add_option("--collectives", o.collectives, "only these collectives (default: all)")
      ->transform(collective_number())
      ->delimiter(',')
      ->allow_extra_args(false)
      ->type_name("a,b,...");
  app.add_flag("--compare", o.compare,
               "MPI's own call against every algorithm of the collective (default\n"
               "parameters), or those --algorithms names, as ratios algorithm/MPI");
  app.add_option("--algorithms", o.algorithms, "with --compare: only these algorithms")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->type_name("a,b,...");
  app.add_option("--transports", o.transports,
                 "the runtime's transports, side by side (default: shm on one node,\n"
                 "mpi between nodes; mpi: p2p over the MPI library, only the algorithms\n"
                 "that need nothing more, and with CCT_VIRTUAL_NODES=k or real nodes the\n"
                 "hierarchical ones, shm inside each node)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->type_name("a,b");
  app.add_flag("--strided", o.strided,
               "bcast, gather, scatter, allgather and alltoall on data that is every\n"
               "other double, as a derived datatype: MPI's own call against the\n"
               "interposer's path (packed into scratch, the runtime's call, unpacked),\n"
               "as ratios");
  app.add_option("--check", o.check,
                 "for every size the tuner measured (ccautotune's CSV), the profile's\n"
                 "pick against the runner-up of those measurements, timed as an OSU-style\n"
                 "loop times them through the interposer's path; flags the sizes where the\n"
                 "runner-up is more than 5% faster")
      ->type_name("RESULTS.csv");
  app.add_option_function<std::string>(
         "--counts", [&o](const std::string& name) { o.counts = *cct::find_count_pattern(name); },
         "the vector collectives' blocks: equal (default), or skewed (rank 0\n"
         "up to 4 times the average, the odd ranks none), at the same size")
      ->check(CLI::IsMember({"equal", "skewed"}).description(""))
      ->type_name("equal|skewed");
}

// The mode's collectives (default: all it has); why the options do not go
// together, or "".
std::string settle_mode(Options& o) {
  if (int(o.strided) + int(o.compare) + int(!o.check.empty()) > 1)
    return "--strided, --compare and --check are modes of their own: one at a time";
  const auto strided_has = [](cct_collective c) {
    return cct::collective_info(c).sized && !is_reduction(c);
  };
  if (o.collectives.empty())
    for (const cct::CollectiveInfo& c : cct::collectives())
      if (!o.strided || strided_has(c.id)) o.collectives.push_back(c.id);
  for (cct_collective c : o.collectives)
    if (o.strided && !strided_has(c))
      return std::string("--strided has no ") + cct::collective_name(c);
  return "";
}

// Reads the command line into o, alike on every rank; only rank 0 prints.
// Returns the exit status where the run ends here: 0 after --help or
// --version, 2 for a bad argument.
std::optional<int> parse_args(int argc, char** argv, int rank, Options& o) {
  CLI::App app{kDescription, "ccbench"};
  app.set_version_flag("--version", "ccbench " CCT_VERSION);
  add_options(app, o);
  std::string error;
  try {
    app.parse(argc, argv);
    error = settle_mode(o);
  } catch (const CLI::Success& e) {
    if (rank == 0) app.exit(e);
    return 0;
  } catch (const CLI::ParseError& e) {
    error = e.what();
  }
  if (error.empty()) return std::nullopt;
  if (rank == 0) std::cerr << "ccbench: " << error << "\nrun 'ccbench --help' for usage\n";
  return 2;
}

// The largest side of any call of the run, on any rank (the tuner's
// footprint); --strided data is half of the buffer it lies in.
std::size_t largest_buffer(const Options& o, int size) {
  std::size_t most = 0;
  for (cct_collective c : o.collectives) {
    const cct::tuner::Footprint f = cct::tuner::footprint({c, o.max_bytes, {o.counts}}, size);
    most = std::max({most, f.send, f.recv});
  }
  return most * (o.strided ? 2 : 1) + 64;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Options opts;
  if (const std::optional<int> status = parse_args(argc, argv, rank, opts)) {
    MPI_Finalize();
    return *status;
  }
  int status = 0;
  try {
    const std::size_t buffer = largest_buffer(opts, size);
    Bench b{open_sessions(opts),
            MPI_COMM_WORLD,
            rank,
            size,
            std::vector<unsigned char>(buffer, 1),
            std::vector<unsigned char>(buffer),
            std::vector<unsigned char>(opts.max_bytes, 1),
            std::vector<unsigned char>(opts.max_bytes),
            MPI_DATATYPE_NULL,
            opts.counts};
    if (opts.strided) b.strided = strided_double();
    if (rank == 0) print_header(b, opts);
    if (!opts.check.empty())
      check_profiles(b, opts.check);
    else
      for (cct_collective c : opts.collectives)
        if (opts.compare)
          for (const auto& s : b.sessions) compare_collective(b, *s, c, opts);
        else
          run_collective(b, c, opts);
    if (b.strided != MPI_DATATYPE_NULL) MPI_Type_free(&b.strided);
  } catch (const std::exception& e) {
    std::cerr << "ccbench (rank " << rank << "): " << e.what() << "\n";
    status = 1;
  }
  MPI_Finalize();
  return status;
}
