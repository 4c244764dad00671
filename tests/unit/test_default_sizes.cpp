// The communicator sizes a run measures by default, and those it predicts
// (tuner/default_sizes.hpp): every doubling on a node of up to 32 cores; on a
// bigger one 2, 4, the cores and those 4x apart between, the rest
// predicted, and confirmed by a short job where measured sizes lie on
// both sides. The same thinning for the ranks per node under mpirun.
#include <catch2/catch.hpp>
#include <vector>

#include "tuner/default_sizes.hpp"

using cct::tuner::confirmed_sizes;
using cct::tuner::default_nps;
using cct::tuner::default_predicted_nps;
using cct::tuner::doubling_sizes;
using cct::tuner::measured_sizes;
using cct::tuner::predicted_nps;
using V = std::vector<int>;

TEST_CASE("default sizes: every doubling up to 32 cores, and the cores", "[tuner][options]") {
  CHECK(default_nps(1) == V{2});
  CHECK(default_nps(2) == V{2});
  CHECK(default_nps(6) == V{2, 4, 6});
  CHECK(default_nps(16) == V{2, 4, 8, 16});
  CHECK(default_nps(32) == V{2, 4, 8, 16, 32});
  CHECK(default_predicted_nps(32) == default_nps(32));
}

TEST_CASE("default sizes: beyond 32 cores 2, 4, 4x apart and the cores; the rest predicted",
          "[tuner][options]") {
  CHECK(default_nps(64) == V{2, 4, 16, 64});
  CHECK(default_nps(128) == V{2, 4, 16, 64, 128});
  CHECK(default_nps(96) == V{2, 4, 16, 64, 96});
  CHECK(default_nps(256) == V{2, 4, 16, 64, 256});
  CHECK(default_predicted_nps(128) == V{2, 4, 8, 16, 32, 64, 128});
  CHECK(default_predicted_nps(96) == V{2, 4, 8, 16, 32, 64, 96});
}

TEST_CASE("default ranks per node: the same thinning from 1", "[tuner][options]") {
  CHECK(measured_sizes(doubling_sizes(1, 1)) == V{1});
  CHECK(measured_sizes(doubling_sizes(1, 32)) == V{1, 2, 4, 8, 16, 32});
  CHECK(measured_sizes(doubling_sizes(1, 128)) == V{1, 2, 4, 16, 64, 128});
  // A list given is thinned as it is, not completed.
  CHECK(measured_sizes({2, 4, 8, 48}) == V{2, 4, 48});
}

TEST_CASE("confirmed sizes: predicted ones between the second smallest measured and the largest",
          "[tuner][options]") {
  CHECK(confirmed_sizes(default_nps(128), default_predicted_nps(128)) == V{8, 32});
  CHECK(confirmed_sizes(default_nps(32), default_predicted_nps(32)).empty());  // all measured
  // A shortlist needs two measured sizes below; nothing beyond the largest.
  CHECK(confirmed_sizes({4, 16, 64}, {8, 32, 256}) == V{32});
  CHECK(confirmed_sizes({2, 4}, {3, 8}).empty());
  CHECK(confirmed_sizes({64, 2, 4, 16}, {32, 8, 8}) == V{8, 32});
}

TEST_CASE("predicted sizes: --predict-np as given, else every doubling", "[tuner][options]") {
  CHECK(predicted_nps({}, 12) == V{2, 4, 8, 12});
  CHECK(predicted_nps({3, 5}, 12) == V{3, 5});
}
