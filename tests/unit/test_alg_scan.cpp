// The prefix reductions: every algorithm of scan and of exscan on 1..8
// ranks with one plan reused for every call: counts 0, 1, 7, p + 1 and
// 3p - 1, out of place and in place, a vector of just over 4 MiB, and every
// datatype x operator at 19 elements. Rank r ends with the reduction over
// ranks 0..r (scan) or 0..r-1 (exscan; rank 0's buffer is left as it was),
// which the data tell apart from any other set of ranks, and nothing past
// the count is written. (The four operators are commutative, so the order
// of operands shows only in floating-point rounding, which MPI leaves to
// the implementation; the data are small integers that round alike.)
#include <catch2/catch.hpp>

#include "support/algorithms.hpp"
#include "support/collective_checks.hpp"
#include "support/harness.hpp"

namespace {

constexpr std::size_t kLarge = (4 << 20) / 8 + 1;
constexpr cct_datatype kTypes[] = {CCT_INT8,   CCT_INT16,  CCT_INT32,  CCT_INT64, CCT_UINT8,
                                   CCT_UINT16, CCT_UINT32, CCT_UINT64, CCT_FLOAT, CCT_DOUBLE};
constexpr cct_op kOps[] = {CCT_SUM, CCT_PROD, CCT_MIN, CCT_MAX};

void check_all(cct::Communicator& comm, cct::Plan& plan) {
  const cct_collective c = plan.algorithm().desc->collective;
  const std::size_t p = comm.size();
  uint32_t tag = 1;
  for (const auto& call : cct::test::calls_to_check(c, comm.size(), {0, 1, 7, p + 1, 3 * p - 1},
                                                    CCT_INT64, CCT_SUM, true))
    cct::test::check_call(comm, plan, call, tag++);
  cct::test::check_call(comm, plan, {c, kLarge, CCT_DOUBLE, CCT_SUM, 0, false, {}}, tag++);
  for (cct_datatype dtype : kTypes)
    for (cct_op op : kOps)
      cct::test::check_call(comm, plan, {c, 19, dtype, op, 0, tag % 2 == 0, {}}, tag++);
}

}  // namespace

TEST_CASE("scan recursive_doubling", "[scan][algorithms]") {
  cct::test::sweep(CCT_SCAN, "recursive_doubling", check_all);
}

TEST_CASE("exscan recursive_doubling", "[scan][algorithms]") {
  cct::test::sweep(CCT_EXSCAN, "recursive_doubling", check_all);
}

TEST_CASE("scan chain", "[scan][algorithms]") {
  cct::test::sweep(CCT_SCAN, "chain", check_all);
}

TEST_CASE("exscan chain", "[scan][algorithms]") {
  cct::test::sweep(CCT_EXSCAN, "chain", check_all);
}
