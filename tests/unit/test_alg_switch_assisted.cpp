// The switch-assisted algorithms (plugins/switch_assisted) over the RapidIO
// fabric simulator: switch_bcast, switch_gather, switch_reduce and
// counter_barrier on 1..16 ranks of a chain, a ring and a tree of boards
// (and 24 ranks on the tree), one plan per algorithm reused for every call:
// every root on up to 5 ranks (first, middle and last beyond), messages of
// one packet and of several, every datatype and operator of reduce, the
// root's in-place forms, and barriers of two plans sharing the switch
// counter. They declare only the capability they need, so on shared memory
// they are never offered, with the reason naming that capability.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "cct/error.hpp"
#include "support/algorithms.hpp"
#include "support/collective_checks.hpp"
#include "support/harness.hpp"
#include "support/reference.hpp"

namespace {

constexpr cct_datatype kTypes[] = {CCT_INT8,   CCT_INT16,  CCT_INT32,  CCT_INT64, CCT_UINT8,
                                   CCT_UINT16, CCT_UINT32, CCT_UINT64, CCT_FLOAT, CCT_DOUBLE};
constexpr cct_op kOps[] = {CCT_SUM, CCT_PROD, CCT_MIN, CCT_MAX};
// Element counts: none, one, a packet's worth (250 bytes of payload), just
// over one packet of int32 (63 x 4 = 252 bytes) and many packets.
constexpr std::size_t kCounts[] = {0, 1, 62, 63, 1001};
constexpr int kBarrierRounds = 20;

// Every root on small communicators; the first, a middle and the last one
// beyond, where every root would multiply the run time without new shapes.
std::vector<int> roots_of(int size) {
  if (size <= 5) {
    std::vector<int> all(size);
    for (int r = 0; r < size; ++r) all[r] = r;
    return all;
  }
  return {0, size / 2, size - 1};
}

struct SwitchPlans {
  explicit SwitchPlans(cct::Communicator& comm)
      : bcast(alg(CCT_BCAST, "switch_bcast"), comm, {}),
        gather(alg(CCT_GATHER, "switch_gather"), comm, {}),
        reduce(alg(CCT_REDUCE, "switch_reduce"), comm, {}),
        barrier(alg(CCT_BARRIER, "counter_barrier"), comm, {}),
        other_barrier(alg(CCT_BARRIER, "counter_barrier"), comm, {}) {}

  static const cct::AlgorithmEntry& alg(cct_collective c, const char* name) {
    return cct::test::algorithm(c, name);
  }

  cct::Plan bcast, gather, reduce, barrier, other_barrier;
};

void check_rooted(cct::Communicator& comm, SwitchPlans& plans, uint32_t& tag) {
  int i = 0;
  for (int root : roots_of(comm.size())) {
    for (std::size_t count : kCounts) {
      const cct_datatype dtype = kTypes[i++ % std::size(kTypes)];
      cct::test::check_bcast_call(comm, plans.bcast, root, count, dtype, tag++);
      cct::test::check_gather_call(comm, plans.gather, root, count, dtype, false, tag++);
      cct::test::check_gather_call(comm, plans.gather, root, count, dtype, true, tag++);
      cct::test::check_reduce_call(comm, plans.reduce, root, count, CCT_INT32, CCT_SUM, false,
                                   tag++);
      cct::test::check_reduce_call(comm, plans.reduce, root, count, CCT_DOUBLE, CCT_MAX, true,
                                   tag++);
    }
  }
}

// Floating-point inputs are small integers (support/reference.hpp), so the
// switches' order of combining cannot change a result and equality is exact.
void check_reduce_types(cct::Communicator& comm, SwitchPlans& plans, uint32_t& tag) {
  const int root = comm.size() - 1;
  for (cct_datatype dtype : kTypes) {
    for (cct_op op : kOps) {
      const bool in_place = tag % 2 == 0;
      cct::test::check_reduce_call(comm, plans.reduce, root, 19, dtype, op, in_place, tag++);
    }
  }
}

// Each round every rank counts itself in, passes a barrier (alternately of
// the two plans, which share the switch counter) and checks that every rank
// had counted itself in. The ranks are fibers of one process, so `entered`
// is shared by all of them.
void check_barriers(cct::Communicator& comm, SwitchPlans& plans, std::vector<int>& entered) {
  for (int round = 0; round < kBarrierRounds; ++round) {
    ++entered[round];
    cct::Plan& plan = round % 3 == 0 ? plans.other_barrier : plans.barrier;
    plan.run(cct::test::coll_args(CCT_BARRIER, nullptr, nullptr, 0, CCT_UINT8, 0, round));
    cct::test::expect(entered[round] == comm.size(),
                      "barrier round " + std::to_string(round) + ": left after " +
                          std::to_string(entered[round]) + " of " + std::to_string(comm.size()) +
                          " ranks entered");
  }
}

void check_on(const std::string& fabric, int ranks) {
  INFO("switch algorithms on " << ranks << " ranks of " << fabric);
  std::vector<int> entered(kBarrierRounds, 0);
  REQUIRE(cct::test::on_simulated_ranks(ranks, fabric, [&](cct::Communicator& comm) {
            SwitchPlans plans(comm);
            uint32_t tag = 1;
            check_rooted(comm, plans, tag);
            check_reduce_types(comm, plans, tag);
            check_barriers(comm, plans, entered);
          }) == "");
}

}  // namespace

TEST_CASE("switch algorithms on a chain of boards", "[switch_assisted]") {
  for (int ranks = 1; ranks <= 16; ++ranks) check_on("chain:4", ranks);
}

TEST_CASE("switch algorithms on a ring of boards", "[switch_assisted]") {
  for (int ranks = 1; ranks <= 16; ++ranks) check_on("ring:4", ranks);
}

TEST_CASE("switch algorithms on a tree of boards", "[switch_assisted]") {
  for (int ranks = 1; ranks <= 16; ++ranks) check_on("tree:16", ranks);
  check_on("tree:16", 24);
}

TEST_CASE("switch algorithms refuse a root outside the communicator", "[switch_assisted]") {
  REQUIRE(cct::test::on_simulated_ranks(3, "chain:1", [](cct::Communicator& comm) {
            SwitchPlans plans(comm);
            auto buf = cct::test::buffer(3, CCT_INT32);
            for (cct::Plan* plan : {&plans.bcast, &plans.gather, &plans.reduce}) {
              const cct_collective c = plan->algorithm().desc->collective;
              bool refused = false;
              try {
                plan->run(
                    cct::test::coll_args(c, buf.data(), buf.data(), 1, CCT_INT32, comm.size(), 1));
              } catch (const cct::Error& e) {
                refused = e.status() == CCT_ERR_INVALID_ARG;
              }
              cct::test::expect(refused, std::string(plan->algorithm().desc->name) + ": root " +
                                             std::to_string(comm.size()) + " was not refused");
            }
          }) == "");
}

TEST_CASE("switch algorithms need only their own capability", "[switch_assisted]") {
  CHECK(cct::test::algorithm(CCT_BCAST, "switch_bcast").desc->required_caps == CCT_CAP_MCAST);
  CHECK(cct::test::algorithm(CCT_GATHER, "switch_gather").desc->required_caps == CCT_CAP_AGGREGATE);
  CHECK(cct::test::algorithm(CCT_REDUCE, "switch_reduce").desc->required_caps == CCT_CAP_AGGREGATE);
  CHECK(cct::test::algorithm(CCT_BARRIER, "counter_barrier").desc->required_caps == CCT_CAP_ATOMIC);
}

TEST_CASE("switch algorithms are never offered on shared memory", "[switch_assisted]") {
  struct Refusal {
    cct_collective collective;
    const char* name;
    const char* why;
  };
  const Refusal refusals[] = {
      {CCT_BCAST, "switch_bcast", "needs transport capabilities {mcast} that 'shm' does not grant"},
      {CCT_GATHER, "switch_gather",
       "needs transport capabilities {aggregate} that 'shm' does not grant"},
      {CCT_REDUCE, "switch_reduce",
       "needs transport capabilities {aggregate} that 'shm' does not grant"},
      {CCT_BARRIER, "counter_barrier",
       "needs transport capabilities {atomic} that 'shm' does not grant"},
  };
  CHECK(cct::test::on_ranks(2, [&](cct::Communicator& comm) {
          for (const Refusal& r : refusals) {
            const cct::AlgorithmEntry& alg = cct::test::algorithm(r.collective, r.name);
            const cct_coll_args args =
                cct::test::coll_args(r.collective, nullptr, nullptr, 1, CCT_INT32, 0, 1);
            const std::string got = cct::why_unusable(alg, comm, args, alg.default_params());
            cct::test::expect(got == r.why, std::string(r.name) + ": why_unusable said '" + got +
                                                "', want '" + r.why + "'");
          }
        }) == "");
}
