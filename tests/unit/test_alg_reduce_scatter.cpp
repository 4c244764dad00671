// The reduce-scatters: every algorithm, for reduce_scatter_block and for
// reduce_scatter, on 1..8 ranks with one plan reused for every call: block
// counts 0, 1, 7, p + 1 and 3p - 1 (reduce_scatter: each in the equal, ramp,
// every-other-rank-empty and one-large patterns), out of place and in
// place, a vector of just over 4 MiB, and every datatype x operator at 19
// elements per block. Each rank ends with its block of the reduction over
// all ranks and nothing past it is written.
#include <catch2/catch.hpp>

#include "support/algorithms.hpp"
#include "support/collective_checks.hpp"
#include "support/harness.hpp"

namespace {

constexpr std::size_t kLargeBlock = (4 << 20) / 8 / 8 + 1;  // over 4 MiB of doubles on 8 ranks
constexpr cct_datatype kTypes[] = {CCT_INT8,   CCT_INT16,  CCT_INT32,  CCT_INT64, CCT_UINT8,
                                   CCT_UINT16, CCT_UINT32, CCT_UINT64, CCT_FLOAT, CCT_DOUBLE};
constexpr cct_op kOps[] = {CCT_SUM, CCT_PROD, CCT_MIN, CCT_MAX};

void check_all(cct::Communicator& comm, cct::Plan& plan) {
  const cct_collective c = plan.algorithm().desc->collective;
  const std::size_t p = comm.size();
  uint32_t tag = 1;
  for (const auto& call : cct::test::calls_to_check(c, comm.size(), {0, 1, 7, p + 1, 3 * p - 1},
                                                    CCT_INT32, CCT_SUM, true))
    cct::test::check_call(comm, plan, call, tag++);
  // Over 4 MiB in equal blocks only: the skewed patterns at that size
  // (one rank 100 times the others) would take minutes on 8 ranks.
  cct::test::check_call(
      comm, plan,
      cct::test::calls_to_check(c, comm.size(), {kLargeBlock}, CCT_DOUBLE, CCT_SUM, false).front(),
      tag++);
  for (cct_datatype dtype : kTypes)
    for (cct_op op : kOps) {
      const bool in_place = tag % 2 == 0;
      auto calls = cct::test::calls_to_check(c, comm.size(), {19}, dtype, op, in_place);
      cct::test::check_call(comm, plan, calls.back(), tag++);
    }
}

}  // namespace

TEST_CASE("reduce_scatter_block recursive_halving", "[reduce_scatter][algorithms]") {
  cct::test::sweep(CCT_REDUCE_SCATTER_BLOCK, "recursive_halving", check_all);
}

TEST_CASE("reduce_scatter_block ring", "[reduce_scatter][algorithms]") {
  cct::test::sweep(CCT_REDUCE_SCATTER_BLOCK, "ring", check_all);
}

TEST_CASE("reduce_scatter_block pairwise", "[reduce_scatter][algorithms]") {
  cct::test::sweep(CCT_REDUCE_SCATTER_BLOCK, "pairwise", check_all);
}

TEST_CASE("reduce_scatter_block reduce_then_scatter", "[reduce_scatter][algorithms]") {
  cct::test::sweep(CCT_REDUCE_SCATTER_BLOCK, "reduce_then_scatter", check_all);
}

TEST_CASE("reduce_scatter_block shm_direct", "[reduce_scatter][algorithms]") {
  cct::test::sweep(CCT_REDUCE_SCATTER_BLOCK, "shm_direct", check_all);
}

TEST_CASE("reduce_scatter recursive_halving", "[reduce_scatter][algorithms]") {
  cct::test::sweep(CCT_REDUCE_SCATTER, "recursive_halving", check_all);
}

TEST_CASE("reduce_scatter ring", "[reduce_scatter][algorithms]") {
  cct::test::sweep(CCT_REDUCE_SCATTER, "ring", check_all);
}

TEST_CASE("reduce_scatter pairwise", "[reduce_scatter][algorithms]") {
  cct::test::sweep(CCT_REDUCE_SCATTER, "pairwise", check_all);
}

TEST_CASE("reduce_scatter reduce_then_scatter", "[reduce_scatter][algorithms]") {
  cct::test::sweep(CCT_REDUCE_SCATTER, "reduce_then_scatter", check_all);
}

TEST_CASE("reduce_scatter shm_direct", "[reduce_scatter][algorithms]") {
  cct::test::sweep(CCT_REDUCE_SCATTER, "shm_direct", check_all);
}
