// The baseline alltoalls: every algorithm on 1..8 ranks and with every
// parameter candidate, one plan reused for every call: counts 0, 1, 7, p + 1
// and 3p - 1, out of place and in place, and blocks of just over 4 MiB.
// Every rank ends with block r of rank r's send buffer at position r, for
// each r, and nothing past the result is written.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>

#include "cct/error.hpp"
#include "support/algorithms.hpp"
#include "support/harness.hpp"
#include "support/reference.hpp"

namespace {

constexpr std::size_t kGuard = 3;                  // elements past the result that must not change
constexpr std::size_t kLarge = (4 << 20) / 8 + 1;  // just over 4 MiB of CCT_INT64 per block

struct Call {
  std::size_t count;
  cct_datatype dtype;
  bool in_place;
  uint32_t tag;  // also the salt of the data

  std::string describe() const {
    return "count " + std::to_string(count) + " " + cct::datatype_name(dtype) +
           (in_place ? " in place" : "");
  }
};

// The block rank `from` sends to rank `to`: distinct for every pair.
void fill_block(unsigned char* block, const Call& c, int from, int to, int ranks) {
  cct::test::fill(block, c.count, c.dtype, from * ranks + to, static_cast<int>(c.tag));
}

void check_alltoall(cct::Communicator& comm, cct::Plan& plan, const Call& c) {
  const int p = comm.size(), me = comm.rank();
  const std::size_t block = cct::test::buffer(c.count, c.dtype).size();
  auto send = cct::test::buffer(p * c.count, c.dtype);
  for (int to = 0; to < p; ++to) fill_block(send.data() + to * block, c, me, to, p);
  auto recv = cct::test::buffer(p * c.count + kGuard, c.dtype);
  cct::test::fill(recv.data(), p * c.count + kGuard, c.dtype, -1 - me, static_cast<int>(c.tag));
  auto want = recv;
  for (int from = 0; from < p; ++from) fill_block(want.data() + from * block, c, from, me, p);
  if (c.in_place) std::memcpy(recv.data(), send.data(), send.size());
  plan.run(cct::test::coll_args(CCT_ALLTOALL, c.in_place ? CCT_IN_PLACE : send.data(), recv.data(),
                                c.count, c.dtype, 0, c.tag));
  const std::string diff =
      cct::test::compare(recv.data(), want.data(), p * c.count + kGuard, c.dtype);
  cct::test::expect(diff.empty(), c.describe() + ": " + diff);
}

void check_all(cct::Communicator& comm, cct::Plan& plan) {
  const std::size_t p = comm.size();
  uint32_t tag = 1;
  for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, p + 1, 3 * p - 1}) {
    check_alltoall(comm, plan, {count, CCT_INT32, false, tag++});
    check_alltoall(comm, plan, {count, CCT_UINT8, true, tag++});
  }
  check_alltoall(comm, plan, {kLarge, CCT_INT64, false, tag++});
  check_alltoall(comm, plan, {3 * p - 1, CCT_DOUBLE, true, tag++});
}

}  // namespace

TEST_CASE("alltoall pairwise", "[alltoall][algorithms]") {
  cct::test::sweep(CCT_ALLTOALL, "pairwise", check_all);
}

TEST_CASE("alltoall bruck", "[alltoall][algorithms]") {
  cct::test::sweep(CCT_ALLTOALL, "bruck", check_all);
}

TEST_CASE("alltoall linear_throttled", "[alltoall][algorithms]") {
  cct::test::sweep(CCT_ALLTOALL, "linear_throttled", check_all);
}

TEST_CASE("alltoall parameters are validated", "[alltoall][algorithms]") {
  CHECK(cct::test::on_ranks(1, [](cct::Communicator& comm) {
          cct::test::expect_refused(comm, CCT_ALLTOALL, "linear_throttled", {1},
                                    "max_requests 1 < 2");
          cct::test::expect_refused(comm, CCT_ALLTOALL, "linear_throttled", {65537},
                                    "max_requests 65537 > 65536");
        }) == "");
}
