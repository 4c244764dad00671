// Topology: levels of a communicator on synthetic and XML hierarchies this
// machine does not have, rank placement, fingerprints and CCT_TOPOLOGY.
#include <hwloc.h>
#include <sched.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cct/error.hpp"
#include "cct/topology.hpp"

namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using Groups = std::vector<int32_t>;

// Sets (or with nullptr unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

std::vector<int> iota_pus(int n) {
  std::vector<int> pus(n);
  for (int i = 0; i < n; ++i) pus[i] = i;
  return pus;
}

void check_level(const cct::LevelPartition& level, cct_level_kind kind, const Groups& group_of) {
  INFO("level kind " << cct::level_name(kind));
  CHECK(level.kind == kind);
  CHECK(level.group_of == group_of);
  int32_t groups = 0;
  for (int32_t g : group_of) groups = std::max(groups, g + 1);
  CHECK(level.groups == groups);
}

// Writes `description`'s topology as hwloc XML; removes the file at scope end.
class XmlFile {
 public:
  explicit XmlFile(const char* description)
      : path_(std::filesystem::temp_directory_path() /
              ("cct_topology_" + std::to_string(getpid()) + ".xml")) {
    hwloc_topology_t topo;
    REQUIRE(hwloc_topology_init(&topo) == 0);
    REQUIRE(hwloc_topology_set_synthetic(topo, description) == 0);
    REQUIRE(hwloc_topology_load(topo) == 0);
    const int rc = hwloc_topology_export_xml(topo, path_.c_str(), 0);
    hwloc_topology_destroy(topo);
    REQUIRE(rc == 0);
  }
  ~XmlFile() { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace

TEST_CASE("topology: two packages of two L3s", "[topology]") {
  const auto topo = cct::Topology::synthetic("pack:2 l3:2 core:4 pu:1");
  REQUIRE(topo.pus() == 16);
  REQUIRE(topo.cores() == 16);

  SECTION("one rank per core: L3 groups of 4, package groups of 8") {
    const auto levels = topo.levels_for(iota_pus(16));
    REQUIRE(levels.size() == 2);
    check_level(levels[0], CCT_LEVEL_L3, {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3});
    check_level(levels[1], CCT_LEVEL_PACKAGE, {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1});
  }
  SECTION("ranks only on package 0: the package level is dropped") {
    const auto levels = topo.levels_for(iota_pus(8));
    REQUIRE(levels.size() == 1);
    check_level(levels[0], CCT_LEVEL_L3, {0, 0, 0, 0, 1, 1, 1, 1});
  }
  SECTION("groups are numbered by their lowest rank; an equal level is dropped") {
    // One L3 of each package: the package partition equals the L3 one.
    const auto levels = topo.levels_for({8, 0, 9, 1});
    REQUIRE(levels.size() == 1);
    check_level(levels[0], CCT_LEVEL_L3, {0, 1, 0, 1});
  }
  SECTION("every rank on its own L3: only the package level") {
    const auto levels = topo.levels_for({12, 0, 4, 8});
    REQUIRE(levels.size() == 1);
    check_level(levels[0], CCT_LEVEL_PACKAGE, {0, 1, 1, 0});
  }
  SECTION("an unbound rank shares nothing below the node") {
    // Not even the machine's one NUMA node, which thus splits the ranks; the
    // package level equals the NUMA one.
    const auto levels = topo.levels_for({0, 1, -1, 4});
    REQUIRE(levels.size() == 2);
    check_level(levels[0], CCT_LEVEL_L3, {0, 0, 1, 2});
    check_level(levels[1], CCT_LEVEL_NUMA, {0, 0, 1, 0});
  }
  SECTION("ranks oversubscribing one PU share everything") {
    const auto levels = topo.levels_for({0, 0, 8, 8});
    REQUIRE(levels.size() == 1);
    check_level(levels[0], CCT_LEVEL_L3, {0, 0, 1, 1});
  }
  SECTION("a PU that does not exist is an error naming the rank") {
    REQUIRE_THROWS_AS(topo.levels_for({0, 16}), cct::Error);
    REQUIRE_THROWS_WITH(topo.levels_for({0, -2}), Contains("rank 1") && Contains("PU -2"));
  }
  SECTION("no ranks, one rank: no levels") {
    CHECK(topo.levels_for({}).empty());
    CHECK(topo.levels_for({5}).empty());
  }
}

TEST_CASE("topology: NUMA nodes inside packages", "[topology]") {
  // hwloc wants PUs last; a description ending in cores gets one PU each.
  const auto topo = cct::Topology::synthetic("pack:2 numa:2 core:8");
  REQUIRE(topo.pus() == 32);
  const auto levels = topo.levels_for(iota_pus(32));
  REQUIRE(levels.size() == 2);
  Groups numa, package;
  for (int r = 0; r < 32; ++r) {
    numa.push_back(r / 8);
    package.push_back(r / 16);
  }
  check_level(levels[0], CCT_LEVEL_NUMA, numa);
  check_level(levels[1], CCT_LEVEL_PACKAGE, package);
}

TEST_CASE("topology: four levels with hyperthreads, ranks placed by pu_for_rank", "[topology]") {
  const auto topo = cct::Topology::synthetic("pack:2 numa:2 l3:2 core:4 pu:2");
  REQUIRE(topo.pus() == 64);
  REQUIRE(topo.cores() == 32);
  // 32 ranks take one PU on each core, so rank r is on core r.
  std::vector<int> pus;
  for (int r = 0; r < 32; ++r) pus.push_back(topo.pu_for_rank(r, 32));
  const auto levels = topo.levels_for(pus);
  REQUIRE(levels.size() == 3);
  Groups l3, numa, package;
  for (int r = 0; r < 32; ++r) {
    l3.push_back(r / 4);
    numa.push_back(r / 8);
    package.push_back(r / 16);
  }
  check_level(levels[0], CCT_LEVEL_L3, l3);
  check_level(levels[1], CCT_LEVEL_NUMA, numa);
  check_level(levels[2], CCT_LEVEL_PACKAGE, package);
}

TEST_CASE("topology: flat machines have no levels for bound ranks", "[topology]") {
  const auto flat = cct::Topology::synthetic("core:4 pu:1");
  CHECK(flat.levels_for({0, 1, 2, 3}).empty());
  CHECK(flat.levels_for({-1, -1, -1}).empty());
  // Bound ranks share the NUMA node, unbound ones do not.
  const auto levels = flat.levels_for({0, -1, 2, -1});
  REQUIRE(levels.size() == 1);
  check_level(levels[0], CCT_LEVEL_NUMA, {0, 1, 0, 2});
  // Hyperthreads of two cores, nothing shared but the node: still flat.
  CHECK(cct::Topology::synthetic("core:2 pu:2").levels_for({0, 1, 2, 3}).empty());
}

TEST_CASE("topology: hyperthreads sharing an L2", "[topology]") {
  const auto topo = cct::Topology::synthetic("l2:2 core:1 pu:2");
  std::vector<int> pus;
  for (int r = 0; r < 4; ++r) pus.push_back(topo.pu_for_rank(r, 4));
  CHECK(pus == std::vector<int>{0, 2, 1, 3});
  const auto levels = topo.levels_for(pus);
  REQUIRE(levels.size() == 1);
  check_level(levels[0], CCT_LEVEL_L2, {0, 1, 0, 1});
}

TEST_CASE("topology: pu_for_rank spreads over cores, then threads, then wraps", "[topology]") {
  const auto topo = cct::Topology::synthetic("pack:2 core:2 pu:2");
  std::vector<int> pus;
  for (int r = 0; r < 10; ++r) pus.push_back(topo.pu_for_rank(r, 10));
  CHECK(pus == std::vector<int>{0, 2, 4, 6, 1, 3, 5, 7, 0, 2});
  CHECK(topo.pu_for_rank(1, 2) == 2);
  REQUIRE_THROWS_AS(topo.pu_for_rank(2, 2), cct::Error);
  REQUIRE_THROWS_AS(topo.pu_for_rank(-1, 2), cct::Error);
}

TEST_CASE("topology: fingerprint is a stable hash of the shape", "[topology]") {
  const std::string fp = cct::Topology::synthetic("pack:2 l3:2 core:4 pu:1").fingerprint();
  REQUIRE(fp.size() == 16);
  CHECK(fp.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(cct::Topology::synthetic("pack:2 l3:2 core:4 pu:1").fingerprint() == fp);
  // Profiles are keyed by it: a change here orphans every stored profile
  // (the exact form is the fingerprint before cache sizes were rounded).
  CHECK(fp == "b1ab81d249b6e227");
  CHECK(cct::Topology::synthetic("pack:2 l3:2 core:4 pu:1").exact_fingerprint() ==
        "07f4cc08b1650898");

  const char* other_shapes[] = {"pack:2 l3:2 core:4 pu:2", "pack:2 core:4 pu:1",
                                "pack:2 numa:2 core:4 pu:1", "pack:1 l3:2 core:4 pu:1"};
  for (const char* shape : other_shapes) {
    INFO(shape);
    CHECK(cct::Topology::synthetic(shape).fingerprint() != fp);
  }
  // How much memory a NUMA node has is not shape.
  CHECK(cct::Topology::synthetic("[numa(memory=1GB)] pack:2 core:2 pu:1").fingerprint() ==
        cct::Topology::synthetic("[numa(memory=2GB)] pack:2 core:2 pu:1").fingerprint());
}

// Identical machines whose hypervisors report their caches differently
// (this machine: one L3 of 32 MiB on one boot, two of 508 MiB on another)
// share a fingerprint; their exact forms differ, and a machine with
// another number of cores, packages or NUMA nodes does not match.
TEST_CASE("topology: caches reported differently keep the fingerprint", "[topology]") {
  const auto a = cct::Topology::synthetic("pack:1 l3:1(size=32MiB) l2:2(size=512KiB) core:1 pu:1");
  const auto b = cct::Topology::synthetic("pack:1 l3:2(size=508MiB) l2:1(size=1MiB) core:1 pu:1");
  const auto c = cct::Topology::synthetic("pack:1 l3:1(size=37486592) core:2 pu:1");
  CHECK(a.fingerprint() == b.fingerprint());
  CHECK(a.fingerprint() == c.fingerprint());
  CHECK(a.exact_fingerprint() != b.exact_fingerprint());
  CHECK(a.exact_fingerprint() != c.exact_fingerprint());
  for (const char* other : {"pack:1 core:4 pu:1", "pack:2 core:1 pu:1", "pack:1 core:2 pu:2",
                            "pack:1 numa:2 core:1 pu:1"}) {
    INFO(other);
    CHECK(cct::Topology::synthetic(other).fingerprint() != a.fingerprint());
  }
  CHECK(a.fingerprints() == std::vector<std::string>{a.fingerprint(), a.exact_fingerprint()});
}

TEST_CASE("topology: summary", "[topology]") {
  CHECK(cct::Topology::synthetic("pack:2 l3:2 core:4 pu:1").summary() ==
        "pack:2 numa:1 l3:4(16MiB) core:16 pu:16");
  CHECK(cct::Topology::synthetic("pack:2 numa:2 l3:2(size=8MiB) l2:2(size=512KiB) core:1 pu:2")
            .summary() == "pack:2 numa:4 l3:8(8MiB) l2:16(512KiB) core:16 pu:32");
}

TEST_CASE("topology: discover the real machine", "[topology]") {
  ScopedEnv unset("CCT_TOPOLOGY", nullptr);
  const auto topo = cct::Topology::discover();
  INFO(topo.summary());
  CHECK(topo.pus() >= 1);
  CHECK(topo.cores() >= 1);
  CHECK(topo.cores() <= topo.pus());
  CHECK_THAT(topo.summary(), Contains("pu:" + std::to_string(topo.pus())));
  CHECK(topo.fingerprint() == cct::Topology::discover().fingerprint());
  CHECK(topo.levels_for({}).empty());

  cpu_set_t before;
  REQUIRE(sched_getaffinity(0, sizeof before, &before) == 0);
  if (topo.bind_to_pu(topo.pu_for_rank(0, 1))) {
    cpu_set_t bound;
    REQUIRE(sched_getaffinity(0, sizeof bound, &bound) == 0);
    CHECK(CPU_COUNT(&bound) == 1);
    REQUIRE(sched_setaffinity(0, sizeof before, &before) == 0);
  }
  REQUIRE_THROWS_AS(topo.bind_to_pu(topo.pus()), cct::Error);
}

TEST_CASE("topology: CCT_TOPOLOGY selects a synthetic or XML topology", "[topology]") {
  const char* description = "pack:2 l3:2 core:4 pu:1";
  const auto expected = cct::Topology::synthetic(description);
  SECTION("synthetic") {
    ScopedEnv env("CCT_TOPOLOGY", "synthetic:pack:2 l3:2 core:4 pu:1");
    const auto topo = cct::Topology::discover();
    CHECK(topo.fingerprint() == expected.fingerprint());
    CHECK(topo.levels_for(iota_pus(16)).size() == 2);
    CHECK_FALSE(topo.bind_to_pu(0));  // its PUs need not exist here
  }
  SECTION("xml") {
    XmlFile xml(description);
    ScopedEnv env("CCT_TOPOLOGY", ("xml:" + xml.path()).c_str());
    const auto topo = cct::Topology::discover();
    CHECK(topo.fingerprint() == expected.fingerprint());
    CHECK(topo.summary() == expected.summary());
    CHECK(topo.levels_for(iota_pus(16)).size() == 2);
    CHECK_FALSE(topo.bind_to_pu(0));
    CHECK(cct::Topology::from_xml(xml.path()).fingerprint() == expected.fingerprint());
  }
}

TEST_CASE("topology: errors name the input", "[topology]") {
  REQUIRE_THROWS_AS(cct::Topology::synthetic("pack:x"), cct::Error);
  REQUIRE_THROWS_WITH(cct::Topology::synthetic("pack:x"),
                      Contains("synthetic description 'pack:x'"));
  REQUIRE_THROWS_WITH(cct::Topology::from_xml("/nonexistent/cct-topo.xml"),
                      Contains("'/nonexistent/cct-topo.xml'") && Contains("No such file"));
  {
    ScopedEnv env("CCT_TOPOLOGY", "synthetic:pack:x");
    REQUIRE_THROWS_WITH(cct::Topology::discover(),
                        StartsWith("CCT_TOPOLOGY: ") && Contains("'pack:x'"));
  }
  {
    ScopedEnv env("CCT_TOPOLOGY", "xml:/nonexistent/cct-topo.xml");
    REQUIRE_THROWS_WITH(cct::Topology::discover(),
                        StartsWith("CCT_TOPOLOGY: ") && Contains("'/nonexistent/cct-topo.xml'"));
  }
  {
    XmlFile xml("core:2 pu:1");
    std::filesystem::resize_file(xml.path(), 10);  // truncated mid-tag
    REQUIRE_THROWS_WITH(cct::Topology::from_xml(xml.path()),
                        Contains("XML topology '" + xml.path() + "'"));
  }
  {
    ScopedEnv env("CCT_TOPOLOGY", "lstopo:foo");
    REQUIRE_THROWS_WITH(cct::Topology::discover(),
                        StartsWith("CCT_TOPOLOGY: ") && Contains("'lstopo:foo'"));
  }
}

// Ranks on several nodes (node_of_rank): no group spans two nodes, and the
// node level splits them by node; every node has the topology's shape.
TEST_CASE("topology: levels of ranks on several nodes", "[topology][multinode]") {
  const auto topo = cct::Topology::synthetic("pack:2 core:2 pu:1");
  SECTION("two nodes, the same PUs on each: two groups") {
    const auto levels = topo.levels_for({0, 1, 0, 1}, {0, 0, 1, 1});
    REQUIRE(levels.size() == 1);
    CHECK(levels[0].group_of == Groups{0, 0, 1, 1});
    CHECK(levels[0].groups == 2);
  }
  SECTION("ranks placed round-robin over the nodes") {
    const auto levels = topo.levels_for({0, 0, 2, 2}, {0, 1, 0, 1});
    REQUIRE(levels.size() == 1);
    CHECK(levels[0].group_of == Groups{0, 1, 0, 1});
  }
  SECTION("a NUMA node per package, and the node level") {
    const auto numa = cct::Topology::synthetic("pack:2 numa:1 core:2 pu:1");
    const auto levels = numa.levels_for({0, 1, 2, 0, 2, 3}, {0, 0, 0, 1, 1, 1});
    REQUIRE(levels.size() == 2);
    check_level(levels[0], CCT_LEVEL_NUMA, {0, 0, 1, 2, 3, 3});
    check_level(levels[1], CCT_LEVEL_NODE, {0, 0, 0, 1, 1, 1});
  }
  SECTION("one rank per node: nothing splits") {
    CHECK(topo.levels_for({0, 0, 0}, {0, 1, 2}).empty());
  }
  SECTION("one node: as without node_of_rank") {
    const auto levels = topo.levels_for({0, 1, 2, 3}, {5, 5, 5, 5});
    REQUIRE(levels.size() == 1);
    check_level(levels[0], CCT_LEVEL_PACKAGE, {0, 0, 1, 1});
  }
  SECTION("unbound ranks share their node only") {
    const auto levels = topo.levels_for({-1, -1, -1, -1}, {0, 0, 1, 1});
    REQUIRE(levels.size() == 1);
    check_level(levels[0], CCT_LEVEL_NODE, {0, 0, 1, 1});
  }
  REQUIRE_THROWS(topo.levels_for({0, 1}, {0}));
}

// A NUMA node that spans its whole node (hwloc gives this shape one for both
// packages) is the node partition once ranks sit on several nodes. Its kind
// comes before the packages', but the levels nest innermost first: the
// packages, then the node partition once (under the NUMA kind, the inner
// of the two kinds that give it).
TEST_CASE("topology: a NUMA node as large as the node is the node level", "[topology][multinode]") {
  const auto topo = cct::Topology::synthetic("pack:2 core:2 pu:1");
  const auto levels = topo.levels_for({0, 1, 2, 3, 0, 1, 2, 3}, {0, 0, 0, 0, 1, 1, 1, 1});
  REQUIRE(levels.size() == 2);
  check_level(levels[0], CCT_LEVEL_PACKAGE, {0, 0, 1, 1, 2, 2, 3, 3});
  CHECK(levels[1].kind == CCT_LEVEL_NUMA);
  CHECK(levels[1].group_of == Groups{0, 0, 0, 0, 1, 1, 1, 1});
}
