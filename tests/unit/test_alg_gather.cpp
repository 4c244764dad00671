// The baseline gathers: every algorithm on 1..8 ranks and with every
// parameter candidate, one plan reused for every root, for counts 0, 1, 7,
// p + 1 and 3p - 1, in the plain and the root's in-place form, and for one
// gather of at least 4 MiB. The root ends with every rank's block in rank
// order and nothing past them is written; other ranks pass no receive buffer.
#include <catch2/catch.hpp>

#include "support/algorithms.hpp"
#include "support/collective_checks.hpp"
#include "support/harness.hpp"

namespace {

constexpr cct_datatype kTypes[] = {CCT_INT8, CCT_INT32, CCT_DOUBLE, CCT_UINT16};
constexpr std::size_t kLargeBytes = 4 << 20;

void check_all(cct::Communicator& comm, cct::Plan& plan) {
  const std::size_t p = comm.size();
  uint32_t tag = 1;
  for (int root = 0; root < comm.size(); ++root) {
    int i = root;
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, p + 1, 3 * p - 1}) {
      const cct_datatype dtype = kTypes[i++ % 4];
      cct::test::check_gather_call(comm, plan, root, count, dtype, false, tag++);
      cct::test::check_gather_call(comm, plan, root, count, dtype, true, tag++);
    }
  }
  const std::size_t large = (kLargeBytes / 4 + p - 1) / p;  // CCT_INT32 elements per rank
  cct::test::check_gather_call(comm, plan, comm.size() - 1, large, CCT_INT32, false, tag);
}

}  // namespace

TEST_CASE("gather linear", "[gather][algorithms]") {
  cct::test::sweep(CCT_GATHER, "linear", check_all);
}

TEST_CASE("gather binomial", "[gather][algorithms]") {
  cct::test::sweep(CCT_GATHER, "binomial", check_all);
}

TEST_CASE("gather linear_throttled", "[gather][algorithms]") {
  cct::test::sweep(CCT_GATHER, "linear_throttled", check_all);
}

TEST_CASE("gather parameters are validated", "[gather][algorithms]") {
  CHECK(cct::test::on_ranks(1, [](cct::Communicator& comm) {
          cct::test::expect_refused(comm, CCT_GATHER, "linear_throttled", {0},
                                    "max_outstanding 0 < 1");
        }) == "");
}
