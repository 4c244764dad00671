// The baseline allreduces: every algorithm on 1..8 ranks, one plan reused
// for every call: counts 0, 1, 7, p + 1 and 3p - 1 (counts below the rank
// count leave blocks empty), out of place and in place, a vector of just
// over 4 MiB, and every datatype x operator at 19 elements (int8 sums wrap).
// Every rank ends with the reduction of all ranks' inputs and nothing past
// the count is written.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>

#include "cct/error.hpp"
#include "support/algorithms.hpp"
#include "support/harness.hpp"
#include "support/reference.hpp"

namespace {

constexpr std::size_t kGuard = 3;                  // elements past the count that must not change
constexpr std::size_t kLarge = (4 << 20) / 8 + 1;  // just over 4 MiB of CCT_DOUBLE
constexpr std::size_t kSmall = 19;
constexpr cct_datatype kTypes[] = {CCT_INT8,   CCT_INT16,  CCT_INT32,  CCT_INT64, CCT_UINT8,
                                   CCT_UINT16, CCT_UINT32, CCT_UINT64, CCT_FLOAT, CCT_DOUBLE};
constexpr cct_op kOps[] = {CCT_SUM, CCT_PROD, CCT_MIN, CCT_MAX};

struct Call {
  std::size_t count;
  cct_datatype dtype;
  cct_op op;
  bool in_place;
  uint32_t tag;  // also the salt of the data

  std::string describe() const {
    return "count " + std::to_string(count) + " " + cct::datatype_name(dtype) + " " +
           cct::op_name(op) + (in_place ? " in place" : "");
  }
};

void check_allreduce(cct::Communicator& comm, cct::Plan& plan, const Call& c) {
  const int salt = static_cast<int>(c.tag);
  auto send = cct::test::buffer(c.count, c.dtype);
  cct::test::fill(send.data(), c.count, c.dtype, comm.rank(), salt);
  auto recv = cct::test::buffer(c.count + kGuard, c.dtype);
  cct::test::fill(recv.data(), c.count + kGuard, c.dtype, comm.size() + comm.rank(), salt);
  auto want = recv;
  cct::test::expected_reduction(want.data(), c.count, c.dtype, c.op, comm.size(), salt);
  if (c.in_place) std::memcpy(recv.data(), send.data(), send.size());
  plan.run(cct::test::coll_args(CCT_ALLREDUCE, c.in_place ? CCT_IN_PLACE : send.data(), recv.data(),
                                c.count, c.dtype, 0, c.tag, c.op));
  const std::string diff = cct::test::compare(recv.data(), want.data(), c.count + kGuard, c.dtype);
  cct::test::expect(diff.empty(), c.describe() + ": " + diff);
}

void check_all(cct::Communicator& comm, cct::Plan& plan) {
  const std::size_t p = comm.size();
  uint32_t tag = 1;
  for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, p + 1, 3 * p - 1}) {
    check_allreduce(comm, plan, {count, CCT_INT32, CCT_SUM, false, tag++});
    check_allreduce(comm, plan, {count, CCT_FLOAT, CCT_PROD, true, tag++});
  }
  check_allreduce(comm, plan, {kLarge, CCT_DOUBLE, CCT_SUM, false, tag++});
  for (cct_datatype dtype : kTypes)
    for (cct_op op : kOps) check_allreduce(comm, plan, {kSmall, dtype, op, tag % 2 == 0, tag++});
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
