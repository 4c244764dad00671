// The scattervs: every algorithm on 1..8 ranks with one plan reused for every
// call: blocks around 0, 1, 7, p + 1 and 3p - 1 elements in the equal, ramp,
// every-other-rank-empty and one-large patterns at displacements with gaps
// (rank order on even ranks, reverse on odd ones), at the first and last root,
// out of place and in place, blocks of over 4 MiB in all, and every
// datatype. Every block lands where its receiver asked, and nothing else
// in a buffer is written.
#include <catch2/catch.hpp>

#include "support/algorithms.hpp"
#include "support/collective_checks.hpp"
#include "support/harness.hpp"

TEST_CASE("scatterv linear", "[scatterv][algorithms]") {
  cct::test::sweep(CCT_SCATTERV, "linear", cct::test::check_vector_calls);
}

TEST_CASE("scatterv linear_throttled", "[scatterv][algorithms]") {
  cct::test::sweep(CCT_SCATTERV, "linear_throttled", cct::test::check_vector_calls);
}

TEST_CASE("scatterv binomial", "[scatterv][algorithms]") {
  cct::test::sweep(CCT_SCATTERV, "binomial", cct::test::check_vector_calls);
}
