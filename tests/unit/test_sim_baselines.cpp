// The RapidIO fabric simulator as a platform for the existing algorithms:
// every algorithm of the registry that needs only point-to-point is correct
// over it on 1..8 ranks (the unchanged code, each rank a fiber in virtual
// time); a job is deterministic (the same job twice gives the same
// statistics and virtual times); and 256 ranks on a tree of 64 boards run a
// switch and a binomial broadcast, checked, in a few seconds.
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "cct/error.hpp"
#include "cct/simulate.hpp"
#include "support/algorithms.hpp"
#include "support/collective_checks.hpp"
#include "support/harness.hpp"

namespace {

constexpr int kMaxRanks = 8;
constexpr const char* kFabric = "tree:4";  // 4 boards of 4 DSPs: 2 switches deep
// Element counts of int32: one element, and more than one 250-byte packet.
constexpr std::size_t kCounts[] = {1, 70};

// (Those that need topology levels never run here: the simulator's
// communicator is flat.)
bool needs_only_p2p(const cct::AlgorithmEntry& alg) {
  return alg.desc->required_caps == CCT_CAP_P2P && (alg.desc->limits & CCT_LIMIT_NEEDS_LEVELS) == 0;
}

std::string name_of(const cct::AlgorithmEntry& alg) {
  return std::string(cct::collective_name(alg.desc->collective)) + "/" + alg.desc->name;
}

// The reason the algorithm cannot run calls of this size on comm, or "".
std::string why_not(const cct::AlgorithmEntry& alg, const cct::Communicator& comm) {
  const cct_coll_args args =
      cct::test::coll_args(alg.desc->collective, nullptr, nullptr, kCounts[1], CCT_INT32, 0, 1);
  return cct::why_unusable(alg, comm, args, alg.default_params());
}

// Ranks count themselves in before each barrier and check after it that all
// did; the ranks are fibers of one process, so `entered` is shared.
void check_barrier(cct::Communicator& comm, cct::Plan& plan, std::vector<int>& entered) {
  for (std::size_t round = 0; round < entered.size(); ++round) {
    ++entered[round];
    plan.run(cct::test::coll_args(CCT_BARRIER, nullptr, nullptr, 0, CCT_UINT8, 0, round));
    cct::test::expect(entered[round] == comm.size(),
                      "round " + std::to_string(round) + ": left before every rank entered");
  }
}

// Every call of the collective's standard checks (cct::test::calls_to_check)
// at each count, in place where the algorithm supports it.
void check_algorithm(cct::Communicator& comm, const cct::AlgorithmEntry& alg,
                     std::vector<int>& entered) {
  cct::Plan plan(alg, comm, alg.default_params());
  const cct_collective c = alg.desc->collective;
  if (c == CCT_BARRIER) return check_barrier(comm, plan, entered);
  const bool in_place = alg.desc->limits & CCT_LIMIT_IN_PLACE;
  uint32_t tag = 1;
  for (const cct::test::CheckedCall& call : cct::test::calls_to_check(
           c, comm.size(), {kCounts[0], kCounts[1]}, CCT_INT32, CCT_SUM, in_place))
    cct::test::check_call(comm, plan, call, tag++);
}

// The run of one job for the determinism test: what rank 0 saw of the
// statistics at the end, and every rank's virtual time.
struct JobTrace {
  std::string stats;
  std::vector<double> times;
};

JobTrace run_mixed_job() {
  constexpr int kRanks = 8;
  JobTrace trace{"", std::vector<double>(kRanks, -1)};
  REQUIRE(cct::test::on_simulated_ranks(kRanks, kFabric, [&](cct::Communicator& comm) {
            cct::Plan bcast(cct::test::algorithm(CCT_BCAST, "binomial"), comm, {});
            cct::Plan reduce(cct::test::algorithm(CCT_REDUCE, "switch_reduce"), comm, {});
            const cct::AlgorithmEntry& ring = cct::test::algorithm(CCT_ALLREDUCE, "ring");
            cct::Plan allreduce(ring, comm, ring.default_params());
            cct::test::check_bcast_call(comm, bcast, 3, 1000, CCT_INT32, 1);
            cct::test::check_reduce_call(comm, reduce, 5, 300, CCT_INT64, CCT_SUM, false, 2);
            cct::test::check_allreduce_call(comm, allreduce, 777, CCT_FLOAT, CCT_SUM, false, 3);
            trace.times[comm.rank()] = cct::virtual_now(comm.transport()).value();
            if (comm.rank() == 0) trace.stats = cct::simulation_stats(comm.transport());
          }) == "");
  return trace;
}

}  // namespace

TEST_CASE("every p2p algorithm is correct over the simulator", "[sim_baselines]") {
  std::vector<const cct::AlgorithmEntry*> algorithms;
  for (const cct::AlgorithmEntry& alg : cct::test::registry().algorithms())
    if (needs_only_p2p(alg)) algorithms.push_back(&alg);
  REQUIRE(!algorithms.empty());
  std::vector<int> sizes_run(algorithms.size(), 0);
  for (int ranks = 1; ranks <= kMaxRanks; ++ranks) {
    for (std::size_t i = 0; i < algorithms.size(); ++i) {
      INFO(name_of(*algorithms[i]) << " on " << ranks << " ranks of " << kFabric);
      std::vector<int> entered(10, 0);
      bool usable = false;
      REQUIRE(cct::test::on_simulated_ranks(ranks, kFabric, [&](cct::Communicator& comm) {
                if (!why_not(*algorithms[i], comm).empty()) return;
                usable = true;
                check_algorithm(comm, *algorithms[i], entered);
              }) == "");
      sizes_run[i] += usable ? 1 : 0;
    }
  }
  // Each ran somewhere: the power-of-two ones on 1, 2, 4 and 8 ranks.
  for (std::size_t i = 0; i < algorithms.size(); ++i) {
    INFO(name_of(*algorithms[i]));
    CHECK(sizes_run[i] > 0);
  }
}

TEST_CASE("a simulated job is deterministic", "[sim_baselines]") {
  const JobTrace first = run_mixed_job();
  const JobTrace second = run_mixed_job();
  CHECK(first.stats.find("data_packets") != std::string::npos);
  for (double t : first.times) CHECK(t > 0);
  CHECK(first.stats == second.stats);
  CHECK(first.times == second.times);
}

TEST_CASE("256 simulated ranks broadcast in a few seconds", "[sim_baselines]") {
  constexpr std::size_t kBytes = 64 << 10;
  const auto start = std::chrono::steady_clock::now();
  REQUIRE(cct::test::on_simulated_ranks(256, "tree:64", [](cct::Communicator& comm) {
            cct::Plan switch_bcast(cct::test::algorithm(CCT_BCAST, "switch_bcast"), comm, {});
            cct::Plan binomial(cct::test::algorithm(CCT_BCAST, "binomial"), comm, {});
            cct::test::check_bcast_call(comm, switch_bcast, 0, kBytes / 4, CCT_INT32, 1);
            cct::test::check_bcast_call(comm, binomial, 77, kBytes / 4, CCT_INT32, 2);
          }) == "");
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  INFO("took " << took.count() << " s");
  // Generous for a loaded machine; a simulator that scales badly with the
  // rank count takes minutes.
  CHECK(took.count() < 20);
}
