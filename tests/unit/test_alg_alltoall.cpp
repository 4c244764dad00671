// The baseline alltoalls: every algorithm on 1..8 ranks and with every
// parameter candidate, one plan reused for every call: counts 0, 1, 7, p + 1
// and 3p - 1, out of place and in place, and blocks of just over 1 MiB.
// Every rank ends with block r of rank r's send buffer at position r, for
// each r, and nothing past the result is written.
#include <catch2/catch.hpp>

#include "support/algorithms.hpp"
#include "support/collective_checks.hpp"
#include "support/harness.hpp"
#include "support/reference.hpp"

namespace {

// Blocks past the shm transport's single-copy threshold (32 KiB) and its
// shared-copy pieces (128 KiB), and not a whole number of them: 8 MiB a
// rank on 8 ranks. No algorithm here has a threshold above those; blocks
// of 4 MiB (32 MiB a rank) took this test 4 times as long.
constexpr std::size_t kLarge = (1 << 20) / 8 + 1;  // just over 1 MiB of CCT_INT64 per block

void check_all(cct::Communicator& comm, cct::Plan& plan) {
  const std::size_t p = comm.size();
  uint32_t tag = 1;
  for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, p + 1, 3 * p - 1}) {
    cct::test::check_alltoall_call(comm, plan, count, CCT_INT32, false, tag++);
    cct::test::check_alltoall_call(comm, plan, count, CCT_UINT8, true, tag++);
  }
  cct::test::check_alltoall_call(comm, plan, kLarge, CCT_INT64, false, tag++);
  cct::test::check_alltoall_call(comm, plan, 3 * p - 1, CCT_DOUBLE, true, tag++);
}

}  // namespace

TEST_CASE("alltoall pairwise", "[alltoall][algorithms]") {
  cct::test::sweep(CCT_ALLTOALL, "pairwise", check_all);
}

TEST_CASE("alltoall bruck", "[alltoall][algorithms]") {
  cct::test::sweep(CCT_ALLTOALL, "bruck", check_all);
}

TEST_CASE("alltoall linear_throttled", "[alltoall][algorithms]") {
  cct::test::sweep(CCT_ALLTOALL, "linear_throttled", check_all);
}

TEST_CASE("alltoall parameters are validated", "[alltoall][algorithms]") {
  CHECK(cct::test::on_ranks(1, [](cct::Communicator& comm) {
          cct::test::expect_refused(comm, CCT_ALLTOALL, "linear_throttled", {1},
                                    "max_requests 1 < 2");
          cct::test::expect_refused(comm, CCT_ALLTOALL, "linear_throttled", {65537},
                                    "max_requests 65537 > 65536");
        }) == "");
}
