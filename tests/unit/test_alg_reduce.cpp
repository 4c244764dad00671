// The baseline reduces: every algorithm on 1..8 ranks and with every
// parameter candidate, one plan reused for every call: each root at counts
// 0, 1, 7, p + 1 and 3p - 1 (out of place, and in place at the root), a
// vector of just over 4 MiB, and every datatype x operator at 19 elements
// (int8 sums wrap). The root ends with the reduction of all ranks' inputs and
// nothing past the count is written; the other ranks pass no recvbuf.
#include <catch2/catch.hpp>
#include <string>

#include "cct/error.hpp"
#include "support/algorithms.hpp"
#include "support/collective_checks.hpp"
#include "support/harness.hpp"
#include "support/reference.hpp"

namespace {

constexpr std::size_t kLarge = (4 << 20) / 4 + 1;  // just over 4 MiB of CCT_INT32
constexpr std::size_t kSmall = 19;
constexpr cct_datatype kTypes[] = {CCT_INT8,   CCT_INT16,  CCT_INT32,  CCT_INT64, CCT_UINT8,
                                   CCT_UINT16, CCT_UINT32, CCT_UINT64, CCT_FLOAT, CCT_DOUBLE};
constexpr cct_op kOps[] = {CCT_SUM, CCT_PROD, CCT_MIN, CCT_MAX};

void check_all(cct::Communicator& comm, cct::Plan& plan) {
  const std::size_t p = comm.size();
  uint32_t tag = 1;
  for (int root = 0; root < comm.size(); ++root) {
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, p + 1, 3 * p - 1}) {
      cct::test::check_reduce_call(comm, plan, root, count, CCT_INT32, CCT_SUM, false, tag++);
      cct::test::check_reduce_call(comm, plan, root, count, CCT_UINT16, CCT_MAX, true, tag++);
    }
  }
  cct::test::check_reduce_call(comm, plan, comm.size() - 1, kLarge, CCT_INT32, CCT_SUM, false,
                               tag++);
  for (cct_datatype dtype : kTypes) {
    for (cct_op op : kOps) {
      const bool in_place = tag % 2 == 0;
      cct::test::check_reduce_call(comm, plan, comm.size() / 2, kSmall, dtype, op, in_place, tag++);
    }
  }
}

// A root outside the communicator is refused on every rank before any
// message is posted.
void expect_bad_root_refused(cct::Communicator& comm, cct::Plan& plan) {
  auto buf = cct::test::buffer(1, CCT_INT32);
  for (int root : {-1, comm.size()}) {
    bool refused = false;
    try {
      plan.run(cct::test::coll_args(CCT_REDUCE, buf.data(), buf.data(), 1, CCT_INT32, root, 1));
    } catch (const cct::Error& e) {
      refused = e.status() == CCT_ERR_INVALID_ARG;
    }
    cct::test::expect(refused, "root " + std::to_string(root) + " was not refused");
  }
}

}  // namespace

TEST_CASE("reduce binomial", "[reduce][algorithms]") {
  cct::test::sweep(CCT_REDUCE, "binomial", check_all);
}

TEST_CASE("reduce rabenseifner", "[reduce][algorithms]") {
  cct::test::sweep(CCT_REDUCE, "rabenseifner", check_all);
}

TEST_CASE("reduce chain", "[reduce][algorithms]") {
  cct::test::sweep(CCT_REDUCE, "chain", check_all);
}

TEST_CASE("reduce refuses a root outside the communicator", "[reduce][algorithms]") {
  for (const char* name : {"binomial", "rabenseifner", "chain"}) {
    const cct::AlgorithmEntry& alg = cct::test::algorithm(CCT_REDUCE, name);
    INFO(name);
    CHECK(cct::test::on_ranks(2, [&](cct::Communicator& comm) {
            cct::Plan plan(alg, comm, alg.default_params());
            expect_bad_root_refused(comm, plan);
          }) == "");
  }
}

TEST_CASE("reduce parameters are validated", "[reduce][algorithms]") {
  CHECK(cct::test::on_ranks(1, [](cct::Communicator& comm) {
          cct::test::expect_refused(comm, CCT_REDUCE, "chain", {0}, "segment 0 < 1");
        }) == "");
}
