// The seed's hierarchical algorithms (plugins/hierarchical): two_level bcast,
// allgather and allgatherv, numa allreduce.
//
// Where they split: the groups computed from a communicator's levels
// (groups.hpp, the very header the algorithms use) on synthetic topologies,
// for every value of `level`, and on launched ranks the groups of the
// communicator the algorithms get. What they compute: every algorithm over
// 1..8 ranks and its parameter candidates (cct::test::sweep), every root,
// counts 0, 1, 7, p + 1, 3p - 1 and a few MiB (many chunks through the
// pipeline), in place, every datatype x operator for the allreduce, the
// allgatherv's count patterns with displacements that differ between ranks
// (collective_checks.hpp); and the same on synthetic shapes whose levels
// split the ranks into groups.
#include <hwloc.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "cct/error.hpp"
#include "cct/sdk/datatype.hpp"
#include "hierarchical/groups.hpp"
#include "support/algorithms.hpp"
#include "support/collective_checks.hpp"
#include "support/harness.hpp"
#include "support/reference.hpp"

namespace {

using cct::plugins::hierarchical::Groups;
namespace hier = cct::plugins::hierarchical;

constexpr std::size_t kGuard = 3;  // elements past the result that must stay as they were
constexpr double kTimeoutS = 60;
constexpr const char* kCachesShape = "pack:2 l3:2 core:4 pu:1";
constexpr const char* kNumaShape = "pack:2 numa:2 core:8";
constexpr const char* kFlatShape = "pack:1 core:8";

// ---------------------------------------------------------------- the split

// The levels of `ranks` ranks placed on `shape` as on_ranks places them.
struct ShapeLevels {
  std::vector<cct::LevelPartition> partitions;
  std::vector<cct_level> levels;
};

ShapeLevels levels_on(const std::string& shape, int ranks) {
  const cct::Topology topo = cct::Topology::synthetic(shape);
  std::vector<int> pus;
  for (int r = 0; r < ranks; ++r) pus.push_back(topo.pu_for_rank(r, ranks));
  ShapeLevels s{topo.levels_for(pus), {}};
  for (const auto& p : s.partitions) s.levels.push_back({p.kind, p.groups, p.group_of.data()});
  return s;
}

// Groups of consecutive ranks, `per` each.
std::vector<std::vector<int>> consecutive(int ranks, int per) {
  std::vector<std::vector<int>> groups(static_cast<std::size_t>(ranks / per));
  for (int r = 0; r < ranks; ++r) groups[static_cast<std::size_t>(r / per)].push_back(r);
  return groups;
}

std::vector<cct_level_kind> kinds_of(const ShapeLevels& s) {
  std::vector<cct_level_kind> kinds;
  for (const cct_level& l : s.levels) kinds.push_back(l.kind);
  return kinds;
}

}  // namespace

TEST_CASE("two_level splits at the level its parameter names", "[hierarchical][topology]") {
  SECTION("caches: 16 ranks on " + std::string(kCachesShape)) {
    const ShapeLevels s = levels_on(kCachesShape, 16);
    REQUIRE(kinds_of(s) == std::vector<cct_level_kind>{CCT_LEVEL_L3, CCT_LEVEL_PACKAGE});
    CHECK(hier::split_at_level(s.levels, 16, -1).members == consecutive(16, 4));
    CHECK(hier::split_at_level(s.levels, 16, 0).members == consecutive(16, 4));
    CHECK(hier::split_at_level(s.levels, 16, 1).members == consecutive(16, 8));
    CHECK(hier::split_at_level(s.levels, 16, 2).members == consecutive(16, 16));
    CHECK(hier::split_at_level(s.levels, 16, 7).members == consecutive(16, 16));
  }
  SECTION("caches: 8 ranks fill one package, so only the L3 split is left") {
    const ShapeLevels s = levels_on(kCachesShape, 8);
    REQUIRE(kinds_of(s) == std::vector<cct_level_kind>{CCT_LEVEL_L3});
    CHECK(hier::split_at_level(s.levels, 8, -1).members == consecutive(8, 4));
    CHECK(hier::split_at_level(s.levels, 8, 1).members == consecutive(8, 8));
  }
  SECTION("NUMA without caches: the default takes the innermost level") {
    const ShapeLevels s = levels_on(kNumaShape, 32);
    REQUIRE(kinds_of(s) == std::vector<cct_level_kind>{CCT_LEVEL_NUMA, CCT_LEVEL_PACKAGE});
    CHECK(hier::split_at_level(s.levels, 32, -1).members == consecutive(32, 8));
    CHECK(hier::split_at_level(s.levels, 32, 1).members == consecutive(32, 16));
  }
  SECTION("shared L2 of hardware threads: groups that are not rank ranges") {
    const ShapeLevels s = levels_on("pack:1 l3:1 l2:2 core:1 pu:2", 4);
    REQUIRE(kinds_of(s) == std::vector<cct_level_kind>{CCT_LEVEL_L2});
    const Groups g = hier::split_at_level(s.levels, 4, -1);
    CHECK(g.members == std::vector<std::vector<int>>{{0, 2}, {1, 3}});
    CHECK(g.group_of == std::vector<int>{0, 1, 0, 1});
  }
  SECTION("flat: one group whatever the level") {
    const ShapeLevels s = levels_on(kFlatShape, 8);
    REQUIRE(s.levels.empty());
    for (int64_t level : {-1, 0, 1, 2})
      CHECK(hier::split_at_level(s.levels, 8, level).members == consecutive(8, 8));
  }
  CHECK_THROWS_AS(hier::split_at_level({}, 4, -2), std::out_of_range);
}

TEST_CASE("numa splits at the NUMA level, else keeps one group", "[hierarchical][topology]") {
  const ShapeLevels numa16 = levels_on(kNumaShape, 16);
  REQUIRE(kinds_of(numa16) == std::vector<cct_level_kind>{CCT_LEVEL_NUMA});
  CHECK(hier::numa_split(numa16.levels, 16).members == consecutive(16, 8));
  const ShapeLevels numa32 = levels_on(kNumaShape, 32);
  CHECK(hier::numa_split(numa32.levels, 32).members == consecutive(32, 8));
  // hwloc gives this shape one NUMA node for both packages.
  const ShapeLevels caches = levels_on(kCachesShape, 16);
  CHECK(hier::numa_split(caches.levels, 16).members == consecutive(16, 16));
  CHECK(hier::numa_split(levels_on(kFlatShape, 8).levels, 8).members == consecutive(8, 8));
}

TEST_CASE("the root leads its own group", "[hierarchical][topology]") {
  const Groups g = hier::groups_from(std::vector<int32_t>{7, 7, 3, 3, 7, 3});
  CHECK(g.group_of == std::vector<int>{0, 0, 1, 1, 0, 1});
  CHECK(g.members == std::vector<std::vector<int>>{{0, 1, 4}, {2, 3, 5}});
  CHECK(g.call_leader(0, 4) == 4);
  CHECK(g.call_leader(1, 4) == 2);
  CHECK(g.call_leader(1, 5) == 5);
  CHECK(g.call_leader(0, 5) == 0);
}

// ------------------------------------------------------------- the results

namespace {

constexpr std::size_t kLargeBytes = std::size_t{1} << 20;  // 32 chunks of the default size
constexpr cct_datatype kTypes[] = {CCT_INT8,   CCT_INT16,  CCT_INT32,  CCT_INT64, CCT_UINT8,
                                   CCT_UINT16, CCT_UINT32, CCT_UINT64, CCT_FLOAT, CCT_DOUBLE};
constexpr cct_op kOps[] = {CCT_SUM, CCT_PROD, CCT_MIN, CCT_MAX};

std::size_t elements(std::size_t bytes, cct_datatype dtype) {
  return bytes / cct::sdk::dtype_size(dtype) + 1;  // one past, so the last chunk is short
}

void check_allgather(cct::Communicator& comm, cct::Plan& plan, std::size_t count,
                     cct_datatype dtype, bool in_place, uint32_t tag) {
  const int salt = static_cast<int>(tag);
  const std::size_t p = comm.size();
  auto send = cct::test::buffer(count, dtype);
  const std::size_t block = send.size();
  cct::test::fill(send.data(), count, dtype, comm.rank(), salt);
  auto recv = cct::test::buffer(p * count + kGuard, dtype);
  cct::test::fill(recv.data(), p * count + kGuard, dtype, comm.size() + comm.rank(), salt);
  auto want = recv;
  for (int r = 0; r < comm.size(); ++r)
    cct::test::fill(want.data() + r * block, count, dtype, r, salt);
  if (in_place) std::copy(send.begin(), send.end(), recv.begin() + comm.rank() * block);
  plan.run(cct::test::coll_args(CCT_ALLGATHER, in_place ? CCT_IN_PLACE : send.data(), recv.data(),
                                count, dtype, 0, tag));
  const std::string diff = cct::test::compare(recv.data(), want.data(), p * count + kGuard, dtype);
  cct::test::expect(diff.empty(), "allgather count " + std::to_string(count) +
                                      (in_place ? " in place: " : ": ") + diff);
}

void check_allreduce(cct::Communicator& comm, cct::Plan& plan, std::size_t count,
                     cct_datatype dtype, cct_op op, bool in_place, uint32_t tag) {
  const int salt = static_cast<int>(tag);
  auto send = cct::test::buffer(count, dtype);
  cct::test::fill(send.data(), count, dtype, comm.rank(), salt);
  auto recv = cct::test::buffer(count + kGuard, dtype);
  cct::test::fill(recv.data(), count + kGuard, dtype, comm.size() + comm.rank(), salt);
  auto want = recv;
  cct::test::expected_reduction(want.data(), count, dtype, op, comm.size(), salt);
  if (in_place) std::copy(send.begin(), send.end(), recv.begin());
  plan.run(cct::test::coll_args(CCT_ALLREDUCE, in_place ? CCT_IN_PLACE : send.data(), recv.data(),
                                count, dtype, 0, tag, op));
  const std::string diff = cct::test::compare(recv.data(), want.data(), count + kGuard, dtype);
  cct::test::expect(diff.empty(), "allreduce count " + std::to_string(count) + " " +
                                      cct::datatype_name(dtype) + " " + cct::op_name(op) +
                                      (in_place ? " in place: " : ": ") + diff);
}

// Small counts that do and do not divide by the rank count.
std::vector<std::size_t> small_counts(std::size_t p) {
  return {0, 1, 7, p + 1, 3 * p - 1};
}

void all_bcasts(cct::Communicator& comm, cct::Plan& plan) {
  uint32_t tag = 1;
  for (int root = 0; root < comm.size(); ++root) {
    int i = root;
    for (std::size_t count : small_counts(comm.size()))
      cct::test::check_bcast_call(comm, plan, root, count, kTypes[i++ % 10], tag++);
  }
  cct::test::check_bcast_call(comm, plan, comm.size() / 2, elements(kLargeBytes, CCT_INT32),
                              CCT_INT32, tag);
}

void all_allgathers(cct::Communicator& comm, cct::Plan& plan) {
  uint32_t tag = 1;
  for (std::size_t count : small_counts(comm.size())) {
    check_allgather(comm, plan, count, CCT_INT32, false, tag++);
    check_allgather(comm, plan, count, CCT_INT8, true, tag++);
  }
  const std::size_t large = elements(kLargeBytes / comm.size(), CCT_INT64);
  check_allgather(comm, plan, large, CCT_INT64, false, tag++);
  check_allgather(comm, plan, large, CCT_DOUBLE, true, tag++);
}

void all_allgathervs(cct::Communicator& comm, cct::Plan& plan) {
  const std::size_t p = comm.size();
  uint32_t tag = 1;
  for (const auto& call : cct::test::calls_to_check(
           CCT_ALLGATHERV, comm.size(), {0, 1, 7, p + 1, 3 * p - 1}, CCT_INT32, CCT_SUM, true))
    cct::test::check_call(comm, plan, call, tag++);
  // The large size, whose blocks span chunks: equal, ramped and every
  // other rank's blocks, out of place and in place. Not one rank's 100
  // blocks: 13 MiB for each of 8 ranks to check, over half of this test's
  // time, for a spread the small sizes check.
  const auto patterns =
      cct::test::count_patterns(comm.size(), elements(kLargeBytes / p, CCT_INT64));
  for (bool in_place : {false, true})
    for (std::size_t i = 0; i < 3; ++i)
      cct::test::check_call(
          comm, plan, {CCT_ALLGATHERV, 0, CCT_INT64, CCT_SUM, 0, in_place, patterns[i]}, tag++);
}

void all_allreduces(cct::Communicator& comm, cct::Plan& plan) {
  uint32_t tag = 1;
  for (std::size_t count : small_counts(comm.size())) {
    check_allreduce(comm, plan, count, CCT_INT32, CCT_SUM, false, tag++);
    check_allreduce(comm, plan, count, CCT_FLOAT, CCT_PROD, true, tag++);
  }
  check_allreduce(comm, plan, elements(kLargeBytes, CCT_DOUBLE), CCT_DOUBLE, CCT_SUM, false, tag++);
  check_allreduce(comm, plan, elements(kLargeBytes, CCT_INT64), CCT_INT64, CCT_MAX, true, tag++);
  for (cct_datatype dtype : kTypes)
    for (cct_op op : kOps) {
      const bool in_place = tag % 2 == 0;
      check_allreduce(comm, plan, 19, dtype, op, in_place, tag++);
    }
}

// On `ranks` ranks of `shape`: the communicator's levels split the ranks as
// `expected` says, and `body` passes on a plan with these parameters.
void on_shape(const std::string& shape, int ranks, cct_collective c, const char* name,
              const std::vector<int64_t>& params, std::size_t expected_groups,
              const std::function<void(cct::Communicator&, cct::Plan&)>& body) {
  INFO(name << " on " << ranks << " ranks of " << shape << ", first parameter " << params[0]);
  const cct::AlgorithmEntry& alg = cct::test::algorithm(c, name);
  auto run = [&](cct::Communicator& comm) {
    const auto levels = hier::levels_of(*comm.raw());
    const Groups groups = c == CCT_ALLREDUCE ? hier::numa_split(levels, comm.size())
                                             : hier::split_at_level(levels, comm.size(), params[0]);
    cct::test::expect(
        static_cast<std::size_t>(groups.count()) == expected_groups,
        std::to_string(groups.count()) + " groups, want " + std::to_string(expected_groups));
    cct::Plan plan(alg, comm, params);
    body(comm, plan);
  };
  REQUIRE(cct::test::on_ranks(ranks, cct::Topology::synthetic(shape), run, kTimeoutS) == "");
}

}  // namespace

TEST_CASE("bcast two_level", "[hierarchical][bcast][algorithms]") {
  cct::test::sweep(CCT_BCAST, "two_level", all_bcasts);
}

TEST_CASE("allgather two_level", "[hierarchical][allgather][algorithms]") {
  cct::test::sweep(CCT_ALLGATHER, "two_level", all_allgathers);
}

TEST_CASE("allgatherv two_level", "[hierarchical][allgatherv][algorithms]") {
  cct::test::sweep(CCT_ALLGATHERV, "two_level", all_allgathervs);
}

TEST_CASE("allreduce numa", "[hierarchical][allreduce][algorithms]") {
  cct::test::sweep(CCT_ALLREDUCE, "numa", all_allreduces);
}

TEST_CASE("two_level runs split at every level of a cache hierarchy",
          "[hierarchical][algorithms]") {
  constexpr int64_t kChunk = 8 << 10;
  for (auto [level, groups] : {std::pair<int64_t, std::size_t>{-1, 2}, {1, 1}}) {
    on_shape(kCachesShape, 8, CCT_BCAST, "two_level", {level, kChunk}, groups, all_bcasts);
    on_shape(kCachesShape, 8, CCT_ALLGATHER, "two_level", {level, kChunk}, groups, all_allgathers);
    on_shape(kCachesShape, 8, CCT_ALLGATHERV, "two_level", {level, kChunk}, groups,
             all_allgathervs);
  }
  on_shape(kFlatShape, 8, CCT_BCAST, "two_level", {-1, kChunk}, 1, all_bcasts);
  on_shape(kFlatShape, 8, CCT_ALLGATHER, "two_level", {-1, kChunk}, 1, all_allgathers);
  on_shape(kFlatShape, 8, CCT_ALLGATHERV, "two_level", {-1, kChunk}, 1, all_allgathervs);
}

TEST_CASE("numa runs over NUMA nodes", "[hierarchical][algorithms]") {
  constexpr int64_t kChunk = 8 << 10;
  on_shape(kNumaShape, 16, CCT_ALLREDUCE, "numa", {kChunk}, 2, all_allreduces);
  on_shape("pack:2 numa:2 core:2", 8, CCT_ALLREDUCE, "numa", {kChunk}, 4, all_allreduces);
  on_shape(kFlatShape, 8, CCT_ALLREDUCE, "numa", {kChunk}, 1, all_allreduces);
}

TEST_CASE("hierarchical parameters are validated", "[hierarchical][algorithms]") {
  CHECK(cct::test::on_ranks(1, [](cct::Communicator& comm) {
          cct::test::expect_refused(comm, CCT_BCAST, "two_level", {-2, 32 << 10}, "level -2 < -1");
          cct::test::expect_refused(comm, CCT_ALLGATHER, "two_level", {0, 100},
                                    "chunk 100 is not a positive multiple of 64");
          cct::test::expect_refused(comm, CCT_ALLGATHERV, "two_level", {-3, 32 << 10},
                                    "level -3 < -1");
          cct::test::expect_refused(comm, CCT_ALLREDUCE, "numa", {0},
                                    "chunk 0 is not a positive multiple of 64");
        }) == "");
}

// ----------------------------------------------------------- the placement

namespace {

// hwloc's view of the memory policy of [addr, addr + bytes) against the
// NUMA nodes of the CPUs this process is bound to; "" when they agree.
std::string binding_mismatch(void* addr, std::size_t bytes) {
  hwloc_topology_t topo = nullptr;
  hwloc_topology_init(&topo);
  hwloc_topology_load(topo);
  hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
  hwloc_bitmap_t mine = hwloc_bitmap_alloc();
  hwloc_bitmap_t bound = hwloc_bitmap_alloc();
  hwloc_membind_policy_t policy = HWLOC_MEMBIND_DEFAULT;
  hwloc_get_cpubind(topo, cpus, HWLOC_CPUBIND_PROCESS);
  hwloc_cpuset_to_nodeset(topo, cpus, mine);
  const int got =
      hwloc_get_area_membind(topo, addr, bytes, bound, &policy, HWLOC_MEMBIND_BYNODESET);
  std::string why;
  if (got != 0)
    why = std::string("hwloc_get_area_membind failed: ") + std::strerror(errno);
  else if (policy != HWLOC_MEMBIND_BIND)
    why = "policy " + std::to_string(policy) + ", not HWLOC_MEMBIND_BIND";
  else if (!hwloc_bitmap_isequal(bound, mine))
    why = "bound to other NUMA nodes than the rank's";
  hwloc_bitmap_free(bound);
  hwloc_bitmap_free(mine);
  hwloc_bitmap_free(cpus);
  hwloc_topology_destroy(topo);
  return why;
}

}  // namespace

// The shm transport binds each rank's part of a region (a page or more) to
// the NUMA nodes of the rank's CPUs before the rank first touches it.
TEST_CASE("shm regions: each rank's part is bound to its NUMA nodes", "[hierarchical][shm]") {
  auto body = [](cct::Communicator& comm) {
    cct_transport_instance* tr = comm.transport().raw();
    cct_shm_region region{};
    cct_error err{};
    cct::test::expect(tr->shm->alloc(tr, 64 << 10, &region, &err) == CCT_OK, err.message);
    const std::string why = binding_mismatch(region.peer[comm.rank()], region.bytes_per_rank);
    tr->shm->free(tr, &region);
    cct::test::expect(why.empty(), why);
  };
  CHECK(cct::test::on_ranks(2, body, kTimeoutS) == "");
}
