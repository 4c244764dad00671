// PDBP (plugins/pdbp): the alltoall on 1..8 ranks with every parameter
// candidate, one plan reused for every call (counts 0, 1, odd, multi-block,
// in place), and its buffer policy on its own: rows grow at the threshold,
// by an amount set by the receive/send ratio, and an exhausted pool makes an
// acquire wait until another thread returns a block.
#include <catch2/catch.hpp>
#include <future>
#include <thread>

#include "pdbp/buffer_policy.hpp"
#include "support/algorithms.hpp"
#include "support/collective_checks.hpp"
#include "support/harness.hpp"
#include "support/reference.hpp"

namespace {

using cct::plugins::pdbp::BufferPolicy;
using cct::plugins::pdbp::PolicyShape;

// Counts 0, 1 and odd ones, then blocks of many pool blocks, with a partial
// last chunk (200 KiB per peer is 13 chunks of the default 16 KiB: 8 ranks
// want 91 blocks of a 64-block pool, so writers wait for blocks to come
// back), in and out of place, one plan for all.
void check_all(cct::Communicator& comm, cct::Plan& plan) {
  const std::size_t p = comm.size();
  uint32_t tag = 1;
  for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, p + 1, 3 * p - 1}) {
    cct::test::check_alltoall_call(comm, plan, count, CCT_INT32, false, tag++);
    cct::test::check_alltoall_call(comm, plan, count, CCT_UINT8, true, tag++);
  }
  cct::test::check_alltoall_call(comm, plan, 200 * 1024 / 8 + 3, CCT_INT64, false, tag++);
  cct::test::check_alltoall_call(comm, plan, 100 * 1024 + 5, CCT_UINT8, true, tag++);
  cct::test::check_alltoall_call(comm, plan, 3 * p - 1, CCT_DOUBLE, false, tag++);
}

PolicyShape shape(int initial_slots, int threshold_percent, int blocks) {
  return {.peers = 2,
          .initial_slots = initial_slots,
          .threshold_percent = threshold_percent,
          .blocks = blocks};
}

// Takes `n` blocks for row `peer`, each of which must be granted at once.
void take(BufferPolicy& policy, int peer, int n) {
  for (int i = 0; i < n; ++i) REQUIRE(policy.acquire(peer, BufferPolicy::Patience{0}));
}

}  // namespace

TEST_CASE("alltoall pdbp", "[alltoall][algorithms][pdbp]") {
  cct::test::sweep(CCT_ALLTOALL, "pdbp", check_all);
}

// The sweep varies one parameter at a time on 4 ranks; here the pool
// threads and the smallest blocks meet on 8 oversubscribed ranks, where
// every row competes for an exhausted pool.
TEST_CASE("alltoall pdbp with pool threads and small blocks on 8 ranks",
          "[alltoall][algorithms][pdbp]") {
  const cct::AlgorithmEntry& alg = cct::test::algorithm(CCT_ALLTOALL, "pdbp");
  REQUIRE(cct::test::on_ranks(8, [&](cct::Communicator& comm) {
            cct::Plan plan(alg, comm, {4096, 2, 50, 2});
            check_all(comm, plan);
          }) == "");
}

TEST_CASE("alltoall pdbp parameters are validated", "[alltoall][algorithms][pdbp]") {
  CHECK(cct::test::on_ranks(1, [](cct::Communicator& comm) {
          cct::test::expect_refused(comm, CCT_ALLTOALL, "pdbp", {100, 4, 75, 1},
                                    "block 100 is not a multiple of 64");
          cct::test::expect_refused(comm, CCT_ALLTOALL, "pdbp", {0, 4, 75, 1},
                                    "block 0 outside 64..1048576");
          cct::test::expect_refused(comm, CCT_ALLTOALL, "pdbp", {4096, 0, 75, 1},
                                    "slots 0 outside 1..64");
          cct::test::expect_refused(comm, CCT_ALLTOALL, "pdbp", {4096, 4, 101, 1},
                                    "threshold 101 outside 1..100");
          cct::test::expect_refused(comm, CCT_ALLTOALL, "pdbp", {4096, 4, 75, 0},
                                    "threads 0 outside 1..16");
        }) == "");
}

TEST_CASE("pdbp rows grow when their utilisation reaches the threshold", "[pdbp]") {
  BufferPolicy policy(shape(4, 75, 64));
  take(policy, 0, 2);  // 2 of 4: 50 %
  CHECK(policy.capacity(0) == 4);
  take(policy, 0, 1);  // 3 of 4: 75 %, with nothing sent yet the ratio counts as 1
  CHECK(policy.capacity(0) == 8);
  CHECK(policy.capacity(1) == 4);  // the other row kept its size
  take(policy, 0, 2);              // 5 of 8: 62 %
  CHECK(policy.capacity(0) == 8);
}

TEST_CASE("pdbp rows grow by their receive/send ratio", "[pdbp]") {
  CHECK(BufferPolicy::growth(4, 0, 0) == 4);      // nothing sent yet: ratio 1
  CHECK(BufferPolicy::growth(4, 50, 100) == 2);   // the peer lags: half the row
  CHECK(BufferPolicy::growth(4, 100, 100) == 4);  // even: the row doubles
  CHECK(BufferPolicy::growth(4, 150, 100) == 6);  // the peer is ahead: more
  CHECK(BufferPolicy::growth(4, 900, 100) == 8);  // at most twice the row
  CHECK(BufferPolicy::growth(4, 0, 100) == 1);    // at least one slot

  BufferPolicy policy(shape(4, 75, 64));
  policy.record_sent(0, 1000);
  policy.record_received(0, 500);
  policy.record_sent(1, 1000);
  policy.record_received(1, 3000);
  take(policy, 0, 3);
  take(policy, 1, 3);
  CHECK(policy.capacity(0) == 6);
  CHECK(policy.capacity(1) == 12);
}

TEST_CASE("pdbp rows never grow past the pool, and a full row refuses", "[pdbp]") {
  BufferPolicy policy(shape(4, 50, 6));
  take(policy, 0, 2);
  CHECK(policy.capacity(0) == 6);
  take(policy, 0, 4);
  CHECK(policy.capacity(0) == 6);
  CHECK_FALSE(policy.acquire(0, BufferPolicy::kForever));  // row full: no wait, no block
  policy.release(0, 3);
  CHECK(policy.acquire(0, BufferPolicy::kForever) == 3u);
}

TEST_CASE("pdbp an exhausted pool makes acquire wait until a block returns", "[pdbp]") {
  BufferPolicy policy(shape(4, 100, 3));
  take(policy, 0, 3);
  REQUIRE(policy.free_blocks() == 0);
  // Bounded patience: nothing now, and no failure.
  CHECK_FALSE(policy.acquire(1, BufferPolicy::Patience{0}));
  auto waiter =
      std::async(std::launch::async, [&] { return policy.acquire(1, BufferPolicy::kForever); });
  // No block exists until the release below, so the waiter cannot be done.
  CHECK(waiter.wait_for(std::chrono::seconds(0)) == std::future_status::timeout);
  std::thread returner([&] { policy.release(0, 1); });
  returner.join();
  CHECK(waiter.get() == 1u);  // the waiter resumed with the block returned
  CHECK(policy.held(0) == 2);
  CHECK(policy.held(1) == 1);
  CHECK(policy.free_blocks() == 0);
}

TEST_CASE("pdbp a call starts with every row at its initial size", "[pdbp]") {
  BufferPolicy policy(shape(2, 50, 8));
  take(policy, 0, 1);
  REQUIRE(policy.capacity(0) == 4);
  CHECK_THROWS_AS(policy.start_call(), std::logic_error);  // a block is still held
  policy.release(0, 0);
  policy.start_call();
  CHECK(policy.capacity(0) == 2);
  CHECK(policy.free_blocks() == 8);
}
