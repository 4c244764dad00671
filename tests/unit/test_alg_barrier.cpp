// The baseline barriers on 1..8 ranks, one plan reused for 200 barriers:
// before each barrier every rank counts itself in a shared counter (one per
// round, in memory the forked ranks inherit) and after it checks that every
// rank has; random short delays shuffle the order of arrival.

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <random>
#include <string>
#include <thread>

#include "support/algorithms.hpp"
#include "support/harness.hpp"
#include "support/shared_array.hpp"

namespace {

constexpr int kRankCounts[] = {1, 2, 3, 4, 5, 8};
constexpr int kRounds = 200;
constexpr double kTimeoutS = 60;  // a launch takes well under a second

// kRounds counters shared by the ranks of one launch.
using SharedCounters = cct::test::SharedArray<uint64_t>;

void check_barriers(cct::Communicator& comm, cct::Plan& plan, const SharedCounters& entered) {
  std::minstd_rand random(comm.rank() * 7919 + comm.size());
  const auto ranks = static_cast<uint64_t>(comm.size());
  for (int round = 0; round < kRounds; ++round) {
    if (random() % 4 == 0) std::this_thread::sleep_for(std::chrono::microseconds(random() % 100));
    entered.atomic(round).fetch_add(1);
    plan.run(cct::test::coll_args(CCT_BARRIER, nullptr, nullptr, 0, CCT_UINT8, 0, round));
    const uint64_t seen = entered.atomic(round).load();
    cct::test::expect(seen == ranks, "round " + std::to_string(round) + ": left after " +
                                         std::to_string(seen) + " of " + std::to_string(ranks) +
                                         " ranks entered");
  }
}

void check_algorithm(const char* name) {
  const cct::AlgorithmEntry& alg = cct::test::algorithm(CCT_BARRIER, name);
  for (int ranks : kRankCounts) {
    INFO(name << " on " << ranks << " ranks");
    const SharedCounters entered(kRounds);
    auto run = [&](cct::Communicator& comm) {
      cct::Plan plan(alg, comm, {});
      check_barriers(comm, plan, entered);
    };
    REQUIRE(cct::test::on_ranks(ranks, run, kTimeoutS) == "");
  }
}

}  // namespace

TEST_CASE("barrier dissemination", "[barrier][algorithms]") {
  check_algorithm("dissemination");
}

TEST_CASE("barrier recursive_doubling", "[barrier][algorithms]") {
  check_algorithm("recursive_doubling");
}

TEST_CASE("barrier central_counter", "[barrier][algorithms]") {
  check_algorithm("central_counter");
}
