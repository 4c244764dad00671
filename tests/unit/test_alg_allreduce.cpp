// The baseline allreduces: every algorithm on 1..8 ranks, one plan reused
// for every call: counts 0, 1, 7, p + 1 and 3p - 1 (counts below the rank
// count leave blocks empty), out of place and in place, a vector of just
// over 4 MiB, and every datatype x operator at 19 elements (int8 sums wrap).
// Every rank ends with the reduction of all ranks' inputs and nothing past
// the count is written.
#include <catch2/catch.hpp>

#include "support/algorithms.hpp"
#include "support/collective_checks.hpp"
#include "support/harness.hpp"

namespace {

constexpr std::size_t kLarge = (4 << 20) / 8 + 1;  // just over 4 MiB of CCT_DOUBLE
constexpr std::size_t kSmall = 19;
constexpr cct_datatype kTypes[] = {CCT_INT8,   CCT_INT16,  CCT_INT32,  CCT_INT64, CCT_UINT8,
                                   CCT_UINT16, CCT_UINT32, CCT_UINT64, CCT_FLOAT, CCT_DOUBLE};
constexpr cct_op kOps[] = {CCT_SUM, CCT_PROD, CCT_MIN, CCT_MAX};

void check_all(cct::Communicator& comm, cct::Plan& plan) {
  const std::size_t p = comm.size();
  uint32_t tag = 1;
  for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, p + 1, 3 * p - 1}) {
    cct::test::check_allreduce_call(comm, plan, count, CCT_INT32, CCT_SUM, false, tag++);
    cct::test::check_allreduce_call(comm, plan, count, CCT_FLOAT, CCT_PROD, true, tag++);
  }
  cct::test::check_allreduce_call(comm, plan, kLarge, CCT_DOUBLE, CCT_SUM, false, tag++);
  for (cct_datatype dtype : kTypes) {
    for (cct_op op : kOps) {
      const bool in_place = tag % 2 == 0;
      cct::test::check_allreduce_call(comm, plan, kSmall, dtype, op, in_place, tag++);
    }
  }
}

}  // namespace

TEST_CASE("allreduce recursive_doubling", "[allreduce][algorithms]") {
  cct::test::sweep(CCT_ALLREDUCE, "recursive_doubling", check_all);
}

TEST_CASE("allreduce ring", "[allreduce][algorithms]") {
  cct::test::sweep(CCT_ALLREDUCE, "ring", check_all);
}

TEST_CASE("allreduce rabenseifner", "[allreduce][algorithms]") {
  cct::test::sweep(CCT_ALLREDUCE, "rabenseifner", check_all);
}
