// The scheduled alltoall (plugins/scheduled_alltoall) on 1..8 ranks, one
// plan reused for every call: counts 0, 1, 7, p + 1 and 3p - 1, out of place
// and in place, and blocks of just over 4 MiB. Every rank ends with block r
// of rank r's send buffer at position r, for each r, and nothing past the
// result is written. Also the one-factorisation it runs on.
#include <catch2/catch.hpp>
#include <vector>

#include "scheduled_alltoall/one_factor.hpp"
#include "support/algorithms.hpp"
#include "support/collective_checks.hpp"
#include "support/harness.hpp"

namespace {

constexpr std::size_t kLarge = (4 << 20) / 8 + 1;  // just over 4 MiB of CCT_INT64 per block

void check_all(cct::Communicator& comm, cct::Plan& plan) {
  const std::size_t p = comm.size();
  uint32_t tag = 1;
  for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, p + 1, 3 * p - 1}) {
    cct::test::check_alltoall_call(comm, plan, count, CCT_INT32, false, tag++);
    cct::test::check_alltoall_call(comm, plan, count, CCT_UINT8, true, tag++);
  }
  cct::test::check_alltoall_call(comm, plan, kLarge, CCT_INT64, false, tag++);
  cct::test::check_alltoall_call(comm, plan, 3 * p - 1, CCT_DOUBLE, true, tag++);
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
