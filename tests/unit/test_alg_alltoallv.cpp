// The alltoallvs: every algorithm on 1..8 ranks with one plan reused for every
// call: blocks around 0, 1, 7, p + 1 and 3p - 1 elements in the equal, ramp,
// every-other-rank-empty and one-large patterns at displacements with gaps
// (rank order on even ranks, reverse on odd ones), each pair its own count,
// out of place and in place, blocks of over 4 MiB in all, and every
// datatype. Every block lands where its receiver asked, and nothing else
// in a buffer is written.
#include <catch2/catch.hpp>

#include "support/algorithms.hpp"
#include "support/collective_checks.hpp"
#include "support/harness.hpp"

TEST_CASE("alltoallv pairwise", "[alltoallv][algorithms]") {
  cct::test::sweep(CCT_ALLTOALLV, "pairwise", cct::test::check_vector_calls);
}

TEST_CASE("alltoallv linear", "[alltoallv][algorithms]") {
  cct::test::sweep(CCT_ALLTOALLV, "linear", cct::test::check_vector_calls);
}

TEST_CASE("alltoallv scheduled", "[alltoallv][algorithms]") {
  cct::test::sweep(CCT_ALLTOALLV, "scheduled", cct::test::check_vector_calls);
}

TEST_CASE("alltoallv linear_throttled", "[alltoallv][algorithms]") {
  cct::test::sweep(CCT_ALLTOALLV, "linear_throttled", cct::test::check_vector_calls);
}

TEST_CASE("alltoallv pdbp", "[alltoallv][algorithms][pdbp]") {
  cct::test::sweep(CCT_ALLTOALLV, "pdbp", cct::test::check_vector_calls);
}

TEST_CASE("alltoallv parameters are validated", "[alltoallv][algorithms]") {
  CHECK(cct::test::on_ranks(1, [](cct::Communicator& comm) {
          cct::test::expect_refused(comm, CCT_ALLTOALLV, "linear_throttled", {0},
                                    "max_outstanding 0 < 1");
        }) == "");
}
