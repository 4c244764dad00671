// The baseline scatters: every algorithm on 1..8 ranks and with every
// parameter candidate, one plan reused for every root, for counts 0, 1, 7,
// p + 1 and 3p - 1, in the plain and the root's in-place form, and for one
// scatter of at least 4 MiB. Every rank ends with its block and nothing past
// it written; the root's send buffer is left as it was; other ranks pass no
// send buffer.
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
      cct::test::check_scatter_call(comm, plan, root, count, dtype, false, tag++);
      cct::test::check_scatter_call(comm, plan, root, count, dtype, true, tag++);
    }
  }
  const std::size_t large = (kLargeBytes / 4 + p - 1) / p;  // CCT_INT32 elements per rank
  cct::test::check_scatter_call(comm, plan, comm.size() - 1, large, CCT_INT32, false, tag);
}

}  // namespace

TEST_CASE("scatter linear", "[scatter][algorithms]") {
  cct::test::sweep(CCT_SCATTER, "linear", check_all);
}

TEST_CASE("scatter binomial", "[scatter][algorithms]") {
  cct::test::sweep(CCT_SCATTER, "binomial", check_all);
}

TEST_CASE("scatter linear_throttled", "[scatter][algorithms]") {
  cct::test::sweep(CCT_SCATTER, "linear_throttled", check_all);
}

TEST_CASE("scatter parameters are validated", "[scatter][algorithms]") {
  CHECK(cct::test::on_ranks(1, [](cct::Communicator& comm) {
          cct::test::expect_refused(comm, CCT_SCATTER, "linear_throttled", {0},
                                    "max_outstanding 0 < 1");
        }) == "");
}
