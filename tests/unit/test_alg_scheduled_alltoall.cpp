// The scheduled alltoall (plugins/scheduled_alltoall) on 1..8 ranks, one
// plan reused for every call: counts 0, 1, 7, p + 1 and 3p - 1, out of place
// and in place, and blocks of just over 4 MiB. Every rank ends with block r
// of rank r's send buffer at position r, for each r, and nothing past the
// result is written. Also the one-factorisation it runs on.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "cct/error.hpp"
#include "scheduled_alltoall/one_factor.hpp"
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

TEST_CASE("alltoall scheduled", "[alltoall][algorithms]") {
  cct::test::sweep(CCT_ALLTOALL, "scheduled", check_all);
}

// sweep() covers 1, 2, 3, 4, 5 and 8 ranks; these are the other two.
TEST_CASE("alltoall scheduled on 6 and 7 ranks", "[alltoall][algorithms]") {
  const auto& alg = cct::test::algorithm(CCT_ALLTOALL, "scheduled");
  for (int ranks : {6, 7}) {
    INFO("scheduled on " << ranks << " ranks");
    REQUIRE(cct::test::on_ranks(ranks, [&](cct::Communicator& comm) {
              cct::Plan plan(alg, comm, alg.default_params());
              check_all(comm, plan);
            }) == "");
  }
}

TEST_CASE("alltoall one-factorisation pairs every two ranks once", "[alltoall]") {
  using cct::plugins::alltoall::one_factor_partner;
  using cct::plugins::alltoall::one_factor_rounds;
  for (int n = 1; n <= 16; ++n) {
    INFO("n " << n);
    const int rounds = one_factor_rounds(n);
    CHECK(rounds == (n == 1 ? 0 : n % 2 == 1 ? n : n - 1));
    std::vector<std::vector<int>> met(n, std::vector<int>(n, 0));
    for (int round = 0; round < rounds; ++round) {
      int idle = 0;
      for (int rank = 0; rank < n; ++rank) {
        const int peer = one_factor_partner(rank, round, n);
        if (peer < 0) {
          ++idle;
          continue;
        }
        REQUIRE(peer < n);
        REQUIRE(peer != rank);
        // A matching: the partner's partner is this rank, so no rank has two.
        REQUIRE(one_factor_partner(peer, round, n) == rank);
        ++met[rank][peer];
      }
      CHECK(idle == n % 2);
    }
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) CHECK(met[a][b] == (a == b ? 0 : 1));
  }
}

TEST_CASE("alltoall one-factorisation is XOR on powers of two", "[alltoall]") {
  using cct::plugins::alltoall::one_factor_partner;
  for (int n : {2, 4, 8, 16})
    for (int round = 0; round + 1 < n; ++round)
      for (int rank = 0; rank < n; ++rank)
        CHECK(one_factor_partner(rank, round, n) == (rank ^ (round + 1)));
}
