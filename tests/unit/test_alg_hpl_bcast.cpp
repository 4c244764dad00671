// The HPL panel broadcasts (plugins/hpl_bcast): every algorithm on 1..8
// ranks and with every segment candidate, one plan reused for every root,
// for counts 0, 1, 7, p + 1 and 3p - 1 (most not divisible by p, some
// smaller than p) and a buffer of 4 MiB + 12 bytes (a partial last segment
// and uneven pieces). Every rank ends with the root's data and nothing past
// the count is written. Also the pure arithmetic behind them: the ring
// layouts and the order of the roll's pieces.
#include <catch2/catch.hpp>
#include <set>
#include <vector>

#include "hpl_bcast/blong_pieces.hpp"
#include "hpl_bcast/ring_layout.hpp"
#include "support/algorithms.hpp"
#include "support/collective_checks.hpp"
#include "support/harness.hpp"
#include "support/reference.hpp"

namespace {

using cct::plugins::hpl::ring_layout;
using cct::plugins::hpl::ring_links;
using cct::plugins::hpl::RingShape;

constexpr cct_datatype kTypes[] = {CCT_INT8, CCT_INT32, CCT_DOUBLE, CCT_UINT16};
constexpr std::size_t kLarge = (1 << 20) + 3;  // 4 MiB + 12 bytes of CCT_INT32
constexpr const char* kAlgorithms[] = {"hpl_1ring",   "hpl_1ring_m", "hpl_2ring",
                                       "hpl_2ring_m", "hpl_blong",   "hpl_blong_m"};

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

// Follows the links from the root: every rank is reached exactly once, from
// the rank its own links name as its predecessor.
std::vector<int> reached(RingShape shape, int size) {
  const auto layout = ring_layout(shape, size);
  std::vector<int> times(size, 0);
  std::vector<int> todo{0};
  times[0] = 1;
  while (!todo.empty()) {
    const int v = todo.back();
    todo.pop_back();
    const auto links = ring_links(layout, v);
    for (int t = 0; t < links.nnext; ++t) {
      const int w = links.next[t];
      REQUIRE((w > 0 && w < size));
      REQUIRE(ring_links(layout, w).prev == v);
      ++times[w];
      todo.push_back(w);
    }
  }
  return times;
}

}  // namespace

TEST_CASE("bcast hpl_1ring", "[bcast][hpl][algorithms]") {
  cct::test::sweep(CCT_BCAST, "hpl_1ring", check_all);
}

TEST_CASE("bcast hpl_1ring_m", "[bcast][hpl][algorithms]") {
  cct::test::sweep(CCT_BCAST, "hpl_1ring_m", check_all);
}

TEST_CASE("bcast hpl_2ring", "[bcast][hpl][algorithms]") {
  cct::test::sweep(CCT_BCAST, "hpl_2ring", check_all);
}

TEST_CASE("bcast hpl_2ring_m", "[bcast][hpl][algorithms]") {
  cct::test::sweep(CCT_BCAST, "hpl_2ring_m", check_all);
}

TEST_CASE("bcast hpl_blong", "[bcast][hpl][algorithms]") {
  cct::test::sweep(CCT_BCAST, "hpl_blong", check_all);
}

TEST_CASE("bcast hpl_blong_m", "[bcast][hpl][algorithms]") {
  cct::test::sweep(CCT_BCAST, "hpl_blong_m", check_all);
}

// sweep() covers 1, 2, 3, 4, 5 and 8 ranks; these are the other two.
TEST_CASE("bcast hpl algorithms on 6 and 7 ranks", "[bcast][hpl][algorithms]") {
  for (const char* name : kAlgorithms) {
    const auto& alg = cct::test::algorithm(CCT_BCAST, name);
    for (int ranks : {6, 7}) {
      INFO(name << " on " << ranks << " ranks");
      REQUIRE(cct::test::on_ranks(ranks, [&](cct::Communicator& comm) {
                cct::Plan plan(alg, comm, alg.default_params());
                check_all(comm, plan);
              }) == "");
    }
  }
}

TEST_CASE("bcast hpl segment is validated", "[bcast][hpl][algorithms]") {
  CHECK(cct::test::on_ranks(1, [](cct::Communicator& comm) {
          cct::test::expect_refused(comm, CCT_BCAST, "hpl_1ring", {-1}, "segment -1 < 0");
          cct::test::expect_refused(comm, CCT_BCAST, "hpl_2ring_m", {-4096}, "segment -4096 < 0");
        }) == "");
}

TEST_CASE("hpl ring layouts reach every rank once", "[bcast][hpl]") {
  for (RingShape shape :
       {RingShape::kOne, RingShape::kOneModified, RingShape::kTwo, RingShape::kTwoModified}) {
    for (int size = 1; size <= 16; ++size) {
      INFO("shape " << static_cast<int>(shape) << " size " << size);
      CHECK(reached(shape, size) == std::vector<int>(size, 1));
    }
  }
}

TEST_CASE("hpl ring layouts have the HPL shapes", "[bcast][hpl]") {
  const int p = 9;
  auto root = [&](RingShape s) { return ring_links(ring_layout(s, p), 0); };
  // 1ring: one chain 0 -> 1 -> .. -> 8.
  CHECK(root(RingShape::kOne).nnext == 1);
  CHECK(ring_links(ring_layout(RingShape::kOne, p), 8).nnext == 0);
  CHECK(ring_links(ring_layout(RingShape::kOne, p), 5).prev == 4);
  // 1ringM: the next rank first and alone, the ring from 2.
  const auto m = root(RingShape::kOneModified);
  REQUIRE(m.nnext == 2);
  CHECK((m.next[0] == 1 && m.next[1] == 2));
  CHECK(ring_links(ring_layout(RingShape::kOneModified, p), 1).nnext == 0);
  CHECK(ring_links(ring_layout(RingShape::kOneModified, p), 3).prev == 2);
  // 2ring: halves 1..4 and 5..8.
  const auto two = root(RingShape::kTwo);
  REQUIRE(two.nnext == 2);
  CHECK((two.next[0] == 1 && two.next[1] == 5));
  CHECK(ring_links(ring_layout(RingShape::kTwo, p), 4).nnext == 0);
  // 2ringM: 1 alone, then halves 2..5 and 6..8.
  const auto twom = root(RingShape::kTwoModified);
  REQUIRE(twom.nnext == 3);
  CHECK((twom.next[0] == 1 && twom.next[1] == 2 && twom.next[2] == 6));
  CHECK(ring_links(ring_layout(RingShape::kTwoModified, p), 5).nnext == 0);
  CHECK(ring_links(ring_layout(RingShape::kTwoModified, p), 6).prev == 0);
}

TEST_CASE("hpl blong roll order", "[bcast][hpl]") {
  using cct::plugins::hpl::roll_piece;
  using cct::plugins::hpl::roll_send_piece;
  using cct::plugins::hpl::roll_step_of;
  for (int q = 1; q <= 16; ++q) {
    for (int k = 1; k < q; ++k) {
      INFO("q " << q << " participant " << k);
      // The spread's piece k and the roll's pieces: every piece exactly once.
      std::multiset<int> got{k};
      for (int step = 0; step + 1 < q; ++step) {
        const int piece = roll_piece(k, step, q);
        got.insert(piece);
        CHECK(roll_step_of(k, piece, q) == step);
        // What k receives is what k - 1 sends, in the same order (FIFO).
        CHECK(roll_send_piece(k - 1, step, q) == piece);
      }
      std::multiset<int> all;
      for (int piece = 0; piece < q; ++piece) all.insert(piece);
      CHECK(got == all);
      if (k + 1 == q) continue;
      // k sends its own (spread) piece last, and any other piece no later
      // than one step after it arrived: the roll never waits for the spread
      // before its last send.
      CHECK(roll_send_piece(k, q - 2, q) == k);
      for (int step = 0; step + 2 < q; ++step) {
        const int piece = roll_send_piece(k, step, q);
        REQUIRE(piece != k);
        CHECK(roll_step_of(k, piece, q) <= step + 1);
      }
    }
  }
}
