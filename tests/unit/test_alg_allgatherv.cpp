// The allgathervs: every algorithm on 1..8 ranks with one plan reused for
// every call: blocks around 0, 1, 7, p + 1 and 3p - 1 elements in the
// equal, ramp, every-other-rank-empty and one-large patterns, displaced
// one element apart in rank order on even ranks and in reverse on odd
// ones, out of place and in place, blocks of over 4 MiB in all, and every
// datatype. Every rank ends with every block at its own displacements and
// nothing else in its buffer is written.
#include <catch2/catch.hpp>

#include "support/algorithms.hpp"
#include "support/collective_checks.hpp"
#include "support/harness.hpp"

TEST_CASE("allgatherv ring", "[allgatherv][algorithms]") {
  cct::test::sweep(CCT_ALLGATHERV, "ring", cct::test::check_vector_calls);
}

TEST_CASE("allgatherv bruck", "[allgatherv][algorithms]") {
  cct::test::sweep(CCT_ALLGATHERV, "bruck", cct::test::check_vector_calls);
}

TEST_CASE("allgatherv gatherv_bcast", "[allgatherv][algorithms]") {
  cct::test::sweep(CCT_ALLGATHERV, "gatherv_bcast", cct::test::check_vector_calls);
}
