// The baseline broadcasts: every algorithm on 1..8 ranks and with every
// parameter candidate, one plan reused for every root, for counts that do and
// do not divide by the rank count (0, 1, 7, p + 1, 3p - 1) and for a 4 MiB
// buffer. Every rank ends with the root's data and nothing past the count is
// written.
#include <catch2/catch.hpp>

#include "support/algorithms.hpp"
#include "support/collective_checks.hpp"
#include "support/harness.hpp"
#include "support/reference.hpp"

namespace {

constexpr cct_datatype kTypes[] = {CCT_INT8, CCT_INT32, CCT_DOUBLE, CCT_UINT16};
constexpr std::size_t kLarge = (4 << 20) / 4;  // 4 MiB of CCT_INT32

void check_all(cct::Communicator& comm, cct::Plan& plan) {
  const std::size_t p = comm.size();
  uint32_t tag = 1;
  for (int root = 0; root < comm.size(); ++root) {
    int i = root;
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, p + 1, 3 * p - 1})
      cct::test::check_bcast_call(comm, plan, root, count, kTypes[i++ % 4], tag++);
  }
  cct::test::check_bcast_call(comm, plan, comm.size() - 1, kLarge, CCT_INT32, tag);
}

}  // namespace

TEST_CASE("bcast binomial", "[bcast][algorithms]") {
  cct::test::sweep(CCT_BCAST, "binomial", check_all);
}

TEST_CASE("bcast knomial", "[bcast][algorithms]") {
  cct::test::sweep(CCT_BCAST, "knomial", check_all);
}

TEST_CASE("bcast scatter_allgather", "[bcast][algorithms]") {
  cct::test::sweep(CCT_BCAST, "scatter_allgather", check_all);
}

TEST_CASE("bcast chain", "[bcast][algorithms]") {
  cct::test::sweep(CCT_BCAST, "chain", check_all);
}

TEST_CASE("bcast parameters are validated", "[bcast][algorithms]") {
  CHECK(cct::test::on_ranks(1, [](cct::Communicator& comm) {
          cct::test::expect_refused(comm, CCT_BCAST, "knomial", {1}, "radix 1 < 2");
          cct::test::expect_refused(comm, CCT_BCAST, "chain", {0}, "segment 0 < 1");
        }) == "");
}
