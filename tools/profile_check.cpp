#include "profile_check.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>

#include "bench_timing.hpp"
#include "calls.hpp"
#include "cct/count_pattern.hpp"
#include "cct/error.hpp"
#include "cct/sdk/datatype.hpp"
#include "cct/units.hpp"
#include "interposed_call.hpp"
#include "mpi_calls.hpp"
#include "tuner/measure.hpp"
#include "tuner/results_csv.hpp"

namespace cct::bench {
namespace {

using tuner::ResultRow;

// One fully timed (algorithm, parameters) at one size.
struct Measured {
  const AlgorithmEntry* algorithm;
  std::vector<int64_t> params;
  double median_s;
  std::vector<CountPattern> patterns;  // what a vector collective was measured in
};

// The full measurements (final and crossover rows) of this shape, by
// collective and size; rows of algorithms not loaded here are left out.
std::map<std::pair<cct_collective, int64_t>, std::vector<Measured>> measured_here(
    const std::vector<ResultRow>& rows, const Registry& registry, const Communicator& comm) {
  const std::string transport = comm.transport().entry().desc->name;
  std::map<std::pair<cct_collective, int64_t>, std::vector<Measured>> out;
  for (const ResultRow& row : rows) {
    cct_collective c;
    const bool full = row.stage == tuner::Stage::kFinal || row.stage == tuner::Stage::kCrossover;
    if (!full || row.transport != transport || row.nodes != comm.nodes() || row.np != comm.size() ||
        !parse_collective(row.collective, &c))
      continue;
    if (const AlgorithmEntry* alg = registry.find_algorithm(c, row.algorithm))
      out[{c, row.bytes}].push_back(
          {alg, tuner::parse_params(*alg->desc, row.params), row.result.median_s,
           parse_count_patterns(row.counts)
               .value_or(std::vector<CountPattern>{CountPattern::kEqual})});
  }
  return out;
}

// A program's calls as the MPI interposer runs them: through rt on the
// interposer's path, or, where the interposer leaves a call to the
// library, the library's own call on comm.
void program_calls(Runtime& rt, MPI_Comm comm, const tuner::MeasuredCalls& calls) {
  for (const cct_coll_args& args : calls.args())
    if (const char* left = interposer::interposed(rt, args);
        left != nullptr && left != interposer::kMovesNothing)
      call_library(args, mpi_type(args.dtype), comm);
}

// The runtime a candidate runs in, made on first use: every rank reads the
// same rows, so every rank makes them in the same order. Where no rank
// knows a call's size alone (gatherv, scatterv, alltoallv), a candidate
// that differs from the profile's pick could only be chosen at this size
// by a profile that chooses by size, whose calls agree on their size
// first: it runs so (interposed_call.hpp, runtime_of's up_to), and pays
// for it.
class Runtimes {
 public:
  Runtimes(const Registry& registry, const Communicator& comm) : registry_(registry), comm_(comm) {}
  Runtime& of(const AlgorithmEntry& alg, const std::vector<int64_t>& params, int64_t bytes) {
    std::optional<int64_t> up_to;
    if (collective_info(alg.desc->collective).key_parts != nullptr) up_to = bytes;
    std::unique_ptr<Runtime>& rt = runtimes_[{&alg, params, up_to}];
    if (!rt) rt = interposer::runtime_of(registry_, comm_, alg, params, up_to);
    return *rt;
  }

 private:
  const Registry& registry_;
  const Communicator& comm_;
  std::map<std::tuple<const AlgorithmEntry*, std::vector<int64_t>, std::optional<int64_t>>,
           std::unique_ptr<Runtime>>
      runtimes_;
};

bool usable(const Measured& m, const Communicator& comm, const tuner::MeasuredCalls& calls) {
  return std::all_of(calls.args().begin(), calls.args().end(), [&](const cct_coll_args& args) {
    return why_unusable(*m.algorithm, comm, args, m.params).empty();
  });
}

}  // namespace

CheckCount check_profile(Session& session, MPI_Comm comm, const std::string& results,
                         std::vector<unsigned char>& send, std::vector<unsigned char>& recv) {
  const Communicator& c = session.communicator();
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const auto sizes = measured_here(tuner::read_results(results), session.registry(), c);
  tuner::Footprint largest;
  for (const auto& [key, candidates] : sizes) {
    const tuner::Footprint f =
        tuner::footprint({key.first, key.second, candidates.front().patterns}, c.size());
    largest = {std::max(largest.send, f.send), std::max(largest.recv, f.recv)};
  }
  send.resize(std::max(send.size(), largest.send), 1);
  recv.resize(std::max(recv.size(), largest.recv));
  Runtimes runtimes(session.registry(), c);
  CheckCount count;
  if (rank == 0)
    std::printf("%-10s %8s %10s %10s %8s  %s\n", "collective", "bytes", "pick us", "runner us",
                "pick/2nd", "pick | runner-up");
  for (const auto& [key, candidates] : sizes) {
    const auto [collective, bytes] = key;
    // The calls the rows measured: one per count pattern of a vector
    // collective, all of one size key, so one pick.
    tuner::MeasuredCalls calls({collective, bytes, candidates.front().patterns}, c.size(), rank, 0);
    for (cct_coll_args& args : calls.args()) {
      args.sendbuf = send.data();
      args.recvbuf = recv.data();
    }
    const Choice& pick = session.runtime().choice_for(calls.args().front());
    const Measured* runner = nullptr;
    for (const Measured& m : candidates)
      if ((m.algorithm != pick.algorithm || m.params != pick.params) &&
          (runner == nullptr || m.median_s < runner->median_s) && usable(m, c, calls))
        runner = &m;
    if (runner == nullptr) continue;
    // The pick as the program reaches it (the profile in effect, through
    // the interposer), the runner-up as a profile choosing it would run it
    // (Runtimes).
    const auto run_pick = [&] { program_calls(session.runtime(), comm, calls); };
    Runtime& second = runtimes.of(*runner->algorithm, runner->params, bytes);
    const auto run_second = [&] { program_calls(second, comm, calls); };
    const std::vector<double> t =
        measure_as_programs(comm, {run_pick, run_second}, repetitions(bytes));
    ++count.checked;
    const bool flagged = t[1] < 0.95 * t[0];
    count.flagged += flagged;
    if (rank == 0)
      std::printf("%-10s %8lld %10.2f %10.2f %8.2f  %s | %s%s\n", collective_name(collective),
                  static_cast<long long>(bytes), t[0] * 1e6, t[1] * 1e6, t[0] / t[1],
                  format_choice(*pick.algorithm->desc, pick.params).c_str(),
                  format_choice(*runner->algorithm->desc, runner->params).c_str(),
                  flagged ? "  <- the runner-up wins" : "");
  }
  return count;
}

}  // namespace cct::bench
