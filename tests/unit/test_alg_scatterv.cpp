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

namespace {

constexpr std::size_t kLargeBlock = (4 << 20) / 8 / 8 + 1;
constexpr cct_datatype kTypes[] = {CCT_INT8,   CCT_INT16,  CCT_INT32,  CCT_INT64, CCT_UINT8,
                                   CCT_UINT16, CCT_UINT32, CCT_UINT64, CCT_FLOAT, CCT_DOUBLE};

void check_all(cct::Communicator& comm, cct::Plan& plan) {
  const std::size_t p = comm.size();
  uint32_t tag = 1;
  for (const auto& call : cct::test::calls_to_check(
           CCT_SCATTERV, comm.size(), {0, 1, 7, p + 1, 3 * p - 1}, CCT_INT32, CCT_SUM, true))
    cct::test::check_call(comm, plan, call, tag++);
  // Over 4 MiB in equal blocks only: the skewed patterns at that size
  // (one rank 100 times the others) would take minutes on 8 ranks.
  cct::test::check_call(comm, plan,
                        cct::test::calls_to_check(CCT_SCATTERV, comm.size(), {kLargeBlock},
                                                  CCT_DOUBLE, CCT_SUM, false)
                            .front(),
                        tag++);
  for (cct_datatype dtype : kTypes) {
    const bool in_place = tag % 2 == 0;
    auto calls =
        cct::test::calls_to_check(CCT_SCATTERV, comm.size(), {19}, dtype, CCT_SUM, in_place);
    cct::test::check_call(comm, plan, calls.back(), tag++);
  }
}

}  // namespace

TEST_CASE("scatterv linear", "[scatterv][algorithms]") {
  cct::test::sweep(CCT_SCATTERV, "linear", check_all);
}

TEST_CASE("scatterv linear_throttled", "[scatterv][algorithms]") {
  cct::test::sweep(CCT_SCATTERV, "linear_throttled", check_all);
}
