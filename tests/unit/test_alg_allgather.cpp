// The baseline allgathers: every algorithm on 1..8 ranks (recursive doubling
// on the powers of two among them, and refused on the others), one plan
// reused for every call: counts 0, 1, 7, p + 1 and 3p - 1, out of place and
// in place, and blocks of just over 1 MiB. Every rank ends with every rank's
// block in rank order and nothing past the result is written.
#include <catch2/catch.hpp>
#include <vector>

#include "cct/error.hpp"
#include "support/algorithms.hpp"
#include "support/collective_checks.hpp"
#include "support/harness.hpp"

namespace {

// Blocks past the shm transport's single-copy threshold (32 KiB) and its
// shared-copy pieces (128 KiB), and not a whole number of them: 8 MiB a
// rank on 8 ranks. No algorithm here has a threshold above those; blocks
// of 4 MiB (32 MiB a rank) took this test 4 times as long.
constexpr std::size_t kLarge = (1 << 20) / 8 + 1;  // just over 1 MiB of CCT_INT64 per block
constexpr double kTimeoutS = 60;                   // a launch takes well under a second

void check_all(cct::Communicator& comm, cct::Plan& plan) {
  const std::size_t p = comm.size();
  uint32_t tag = 1;
  for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, p + 1, 3 * p - 1}) {
    cct::test::check_allgather_call(comm, plan, count, CCT_INT32, false, tag++);
    cct::test::check_allgather_call(comm, plan, count, CCT_INT8, true, tag++);
  }
  cct::test::check_allgather_call(comm, plan, kLarge, CCT_INT64, false, tag++);
  cct::test::check_allgather_call(comm, plan, 3 * p - 1, CCT_DOUBLE, true, tag++);
}

void expect_refused(cct::Communicator& comm, const cct::AlgorithmEntry& alg) {
  const std::vector<int64_t> params = alg.default_params();
  const cct_coll_args args =
      cct::test::coll_args(CCT_ALLGATHER, nullptr, nullptr, 1, CCT_INT32, 0, 1);
  cct::test::expect(!cct::why_unusable(alg, comm, args, params).empty(),
                    "can_use accepted a size that is not a power of two");
  bool refused = false;
  try {
    cct::Plan plan(alg, comm, params);
  } catch (const cct::Error& e) {
    refused = e.status() == CCT_ERR_UNSUPPORTED;
  }
  cct::test::expect(refused, "prepare did not refuse with CCT_ERR_UNSUPPORTED");
}

}  // namespace

TEST_CASE("allgather ring", "[allgather][algorithms]") {
  cct::test::sweep(CCT_ALLGATHER, "ring", check_all);
}

TEST_CASE("allgather bruck", "[allgather][algorithms]") {
  cct::test::sweep(CCT_ALLGATHER, "bruck", check_all);
}

TEST_CASE("allgather recursive_doubling", "[allgather][algorithms]") {
  const cct::AlgorithmEntry& alg = cct::test::algorithm(CCT_ALLGATHER, "recursive_doubling");
  for (int ranks : {1, 2, 4, 8}) {
    INFO("recursive_doubling on " << ranks << " ranks");
    auto run = [&](cct::Communicator& comm) {
      cct::Plan plan(alg, comm, alg.default_params());
      check_all(comm, plan);
    };
    REQUIRE(cct::test::on_ranks(ranks, run, kTimeoutS) == "");
  }
}

// Declared CCT_LIMIT_POW2_ONLY: the host refuses it on other sizes, and so
// does the plugin's own prepare.
TEST_CASE("allgather recursive_doubling refuses other sizes", "[allgather][algorithms]") {
  const cct::AlgorithmEntry& alg = cct::test::algorithm(CCT_ALLGATHER, "recursive_doubling");
  CHECK((alg.desc->limits & CCT_LIMIT_POW2_ONLY) != 0);
  for (int ranks : {3, 5}) {
    INFO("recursive_doubling on " << ranks << " ranks");
    CHECK(cct::test::on_ranks(
              ranks, [&](cct::Communicator& comm) { expect_refused(comm, alg); }, kTimeoutS) == "");
  }
}
