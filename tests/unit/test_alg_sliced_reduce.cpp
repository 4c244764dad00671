// The sliced reduce and allreduce (plugins/sliced_reduce): the reducing
// ranks each reduce their own slice of each chunk. On 1..8 ranks and every
// parameter candidate (every rank or the root alone reducing), and with 2 of
// 5 ranks reducing, one plan reused for every call: counts 0, 1, 7, p + 1 and
// 3p - 1 at every root (slices empty for most ranks), vectors of many
// chunks with a short last one, in place and out of place, and every
// datatype x operator over 2.5 chunks, where every rank has a slice to
// reduce. The receiving ranks end with the reduction of all inputs and
// nothing past the count is written.
#include <catch2/catch.hpp>
#include <vector>

#include "cct/sdk/datatype.hpp"
#include "support/algorithms.hpp"
#include "support/collective_checks.hpp"
#include "support/harness.hpp"

namespace {

constexpr std::size_t kLargeBytes = (4 << 20) + 8;          // 4 MiB and a short last chunk
constexpr std::size_t kMidBytes = (64 << 10) * 5 / 2 + 16;  // 2.5 chunks of the default
constexpr cct_datatype kTypes[] = {CCT_INT8,   CCT_INT16,  CCT_INT32,  CCT_INT64, CCT_UINT8,
                                   CCT_UINT16, CCT_UINT32, CCT_UINT64, CCT_FLOAT, CCT_DOUBLE};
constexpr cct_op kOps[] = {CCT_SUM, CCT_PROD, CCT_MIN, CCT_MAX};

std::size_t elements(std::size_t bytes, cct_datatype dtype) {
  return bytes / cct::sdk::dtype_size(dtype);
}

void check_reduces(cct::Communicator& comm, cct::Plan& plan) {
  const std::size_t p = comm.size();
  uint32_t tag = 1;
  for (int root = 0; root < comm.size(); ++root)
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, p + 1, 3 * p - 1}) {
      cct::test::check_reduce_call(comm, plan, root, count, CCT_INT32, CCT_SUM, false, tag++);
      cct::test::check_reduce_call(comm, plan, root, count, CCT_UINT16, CCT_MAX, true, tag++);
    }
  const int last = comm.size() - 1;
  cct::test::check_reduce_call(comm, plan, last, elements(kLargeBytes, CCT_INT32), CCT_INT32,
                               CCT_SUM, false, tag++);
  cct::test::check_reduce_call(comm, plan, 0, elements(kLargeBytes, CCT_DOUBLE), CCT_DOUBLE,
                               CCT_SUM, true, tag++);
  for (cct_datatype dtype : kTypes)
    for (cct_op op : kOps) {
      const bool in_place = tag % 2 == 0;
      const int root = static_cast<int>(tag % p);
      cct::test::check_reduce_call(comm, plan, root, elements(kMidBytes, dtype), dtype, op,
                                   in_place, tag++);
    }
}

void check_allreduces(cct::Communicator& comm, cct::Plan& plan) {
  const std::size_t p = comm.size();
  uint32_t tag = 1;
  for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, p + 1, 3 * p - 1}) {
    cct::test::check_allreduce_call(comm, plan, count, CCT_INT32, CCT_SUM, false, tag++);
    cct::test::check_allreduce_call(comm, plan, count, CCT_FLOAT, CCT_PROD, true, tag++);
  }
  cct::test::check_allreduce_call(comm, plan, elements(kLargeBytes, CCT_DOUBLE), CCT_DOUBLE,
                                  CCT_SUM, false, tag++);
  cct::test::check_allreduce_call(comm, plan, elements(kLargeBytes, CCT_INT64), CCT_INT64, CCT_MAX,
                                  true, tag++);
  for (cct_datatype dtype : kTypes)
    for (cct_op op : kOps) {
      const bool in_place = tag % 2 == 0;
      cct::test::check_allreduce_call(comm, plan, elements(kMidBytes, dtype), dtype, op, in_place,
                                      tag++);
    }
}

}  // namespace

TEST_CASE("reduce sliced", "[sliced_reduce][reduce][algorithms]") {
  cct::test::sweep(CCT_REDUCE, "sliced", check_reduces);
}

TEST_CASE("allreduce sliced", "[sliced_reduce][allreduce][algorithms]") {
  cct::test::sweep(CCT_ALLREDUCE, "sliced", check_allreduces);
}

TEST_CASE("sliced with some of the ranks reducing", "[sliced_reduce][algorithms]") {
  const std::vector<int64_t> params{16 << 10, 2};
  const cct::AlgorithmEntry& reduce = cct::test::algorithm(CCT_REDUCE, "sliced");
  const cct::AlgorithmEntry& allreduce = cct::test::algorithm(CCT_ALLREDUCE, "sliced");
  CHECK(cct::test::on_ranks(5, [&](cct::Communicator& comm) {
          cct::Plan reduce_plan(reduce, comm, params);
          check_reduces(comm, reduce_plan);
          cct::Plan allreduce_plan(allreduce, comm, params);
          check_allreduces(comm, allreduce_plan);
        }) == "");
}

TEST_CASE("sliced parameters are validated", "[sliced_reduce][algorithms]") {
  CHECK(cct::test::on_ranks(1, [](cct::Communicator& comm) {
          for (cct_collective c : {CCT_REDUCE, CCT_ALLREDUCE}) {
            cct::test::expect_refused(comm, c, "sliced", {100, 0},
                                      "chunk 100 is not a positive multiple of 64");
            cct::test::expect_refused(comm, c, "sliced", {64, -1}, "reducers -1 < 0");
          }
        }) == "");
}
