// The SDK's Backoff (cct/sdk/backoff.hpp): its phases come in order, a
// timeout counts only the sleeping phase since the last progress, and
// without one it never gives up.
#include <catch2/catch.hpp>
#include <chrono>

#include "cct/sdk/backoff.hpp"

using cct::sdk::Backoff;
using cct::sdk::BackoffPhases;
using Clock = std::chrono::steady_clock;

namespace {

// Steps until pause() says to give up, and the time they took.
struct GiveUp {
  int steps = 0;
  double seconds = 0;
};

GiveUp until_it_gives_up(Backoff& backoff) {
  const auto start = Clock::now();
  GiveUp result;
  while (backoff.pause()) ++result.steps;
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

}  // namespace

TEST_CASE("sdk Backoff: spins and yields, then sleeps", "[backoff]") {
  Backoff backoff(BackoffPhases{3, 2, 1000, 4000}, 0);
  for (int step = 0; step < 5; ++step) {
    REQUIRE(backoff.pause());
    CHECK_FALSE(backoff.asleep());
  }
  REQUIRE(backoff.pause());
  CHECK(backoff.asleep());
  backoff.reset();
  CHECK_FALSE(backoff.asleep());
  REQUIRE(backoff.pause());
  CHECK_FALSE(backoff.asleep());  // spinning again after progress
}

TEST_CASE("sdk Backoff: a timeout counts the sleeping phase since progress", "[backoff]") {
  constexpr double kTimeout = 0.05;
  Backoff backoff(BackoffPhases{1000, 16, 1000, 64000}, kTimeout);
  const GiveUp first = until_it_gives_up(backoff);
  // Spinning and yielding come first and do not count; the sleeps do.
  CHECK(first.steps > 1000 + 16);
  CHECK(first.seconds >= kTimeout);
  CHECK(first.seconds < kTimeout + 1.0);
  CHECK_FALSE(backoff.asleep());

  // Progress starts the count again, from spinning.
  backoff.reset();
  const GiveUp second = until_it_gives_up(backoff);
  CHECK(second.steps > 1000 + 16);
  CHECK(second.seconds >= kTimeout);
}

TEST_CASE("sdk Backoff: without a timeout it never gives up", "[backoff]") {
  Backoff backoff(BackoffPhases{0, 0, 1000, 1000}, 0);
  const auto start = Clock::now();
  int steps = 0;
  while (Clock::now() - start < std::chrono::milliseconds(60)) {
    REQUIRE(backoff.pause());
    ++steps;
  }
  CHECK(steps > 1);
  CHECK(backoff.asleep());
}
