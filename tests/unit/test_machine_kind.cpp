// Machines of one kind, told from their summaries (cct/machine_kind.hpp).
#include <catch2/catch.hpp>

#include "cct/machine_kind.hpp"
#include "cct/topology.hpp"
#include "tuner/machine.hpp"

namespace {

constexpr const char* kHere = "pack:1 numa:1 l3:1(32MiB) l2:2(512KiB) core:2 pu:2";

}  // namespace

TEST_CASE("machine kind: equal summaries are one kind at distance 0", "[profile]") {
  const auto d = cct::compare_machines(kHere, kHere);
  REQUIRE(d);
  CHECK(d->text.empty());
  CHECK(d->distance == 0);
}

TEST_CASE("machine kind: other counts and cache sizes are named, there before here", "[profile]") {
  const auto d =
      cct::compare_machines("pack:2 numa:2 l3:2(16MiB) l2:16(512KiB) core:16 pu:32", kHere);
  REQUIRE(d);
  CHECK(d->text ==
        "packages: 2 there, 1 here; NUMA nodes: 2 there, 1 here; L3 caches: 2 there, 1 here; "
        "L3 caches: 16MiB there, 32MiB here; L2 caches: 16 there, 2 here; cores: 16 there, 2 "
        "here; PUs: 32 there, 2 here");
  // log2 of 2, 2, 2, 8, 8, 16, and a quarter for the L3 size.
  CHECK(d->distance == Approx(1 + 1 + 1 + 3 + 3 + 4 + 0.25));
  // A hypervisor's other L3 size alone: near.
  const auto cache =
      cct::compare_machines("pack:1 numa:1 l3:1(16MiB) l2:2(512KiB) core:2 pu:2", kHere);
  REQUIRE(cache);
  CHECK(cache->text == "L3 caches: 16MiB there, 32MiB here");
  CHECK(cache->distance == Approx(0.25));
}

TEST_CASE("machine kind: other items, or a summary that cannot be read, are not one kind",
          "[profile]") {
  // No L3 reported there.
  CHECK_FALSE(cct::compare_machines("pack:1 numa:1 l2:2(512KiB) core:2 pu:2", kHere));
  // The same items in another order.
  CHECK_FALSE(cct::compare_machines("numa:1 pack:1 l3:1(32MiB) l2:2(512KiB) core:2 pu:2", kHere));
  for (const char* bad : {"", "pack:1 numa:1 l3:1(32MiB l2:2(512KiB) core:2 pu:2",
                          "pack:x numa:1 l3:1(32MiB) l2:2(512KiB) core:2 pu:2",
                          "pack:0 numa:1 l3:1(32MiB) l2:2(512KiB) core:2 pu:2",
                          "pack:1 numa:1 l3:1(32MiB) l2:2(512KiB) core:2 pu:2 gpu:1"}) {
    INFO(bad);
    CHECK_FALSE(cct::compare_machines(bad, kHere));
    CHECK_FALSE(cct::compare_machines(kHere, bad));
  }
}

// ccautotune --from-results rebuilds the results' machine from its
// summary: totals per level become hwloc's arities per level.
TEST_CASE("machine kind: a summary as an hwloc synthetic topology", "[profile]") {
  CHECK(cct::tuner::synthetic_of("pack:2 numa:2 l3:2(32MiB) l2:16(1MiB) core:16 pu:32") ==
        "pack:2 numa:1 l3:1 l2:8 core:1 pu:2");
  CHECK(cct::tuner::synthetic_of("pack:1 core:2 pu:2") == "pack:1 core:2 pu:1");
  // A count that does not divide into the next level's, and a summary
  // that cannot be read, have none.
  CHECK(cct::tuner::synthetic_of("pack:2 core:3 pu:3").empty());
  CHECK(cct::tuner::synthetic_of("rapidio_sim fabric tree:4").empty());
  const cct::Topology rebuilt =
      cct::Topology::synthetic(cct::tuner::synthetic_of("pack:2 numa:2 l3:2 l2:4 core:4 pu:8"));
  CHECK(rebuilt.cores() == 4);
  CHECK(cct::compare_machines("pack:2 numa:2 l3:2 l2:4 core:4 pu:8", rebuilt.summary())->distance <
        1);
}
