// The multinode algorithms (plugins/multinode) and what they stand on.
//
// Ranks of one launch pretend to sit on 2 or 3 nodes (on_virtual_nodes):
// the shm transport over all ranks plays the network, and the host opens
// shm over every group of every level. Checked here:
//   - the communicator's node levels: the last one is the node partition,
//     no group spans nodes, level_transport is set exactly where a group
//     has more than one rank, with the group's rank and size; the SDK's
//     GroupComm and LeadersComm views of every level, and the leaders'
//     rank translation and error reports;
//   - every collective's `multinode` algorithm for every value of split,
//     inner and outer, on 1..8 ranks over 2 and 3 nodes: the combinations
//     that cannot run must be refused with the expected reason, the others
//     must compute (every root, counts 0, 1, 7, one large count on some
//     rank counts, in place, datatypes x operators for the reductions; the
//     vector forms in every count pattern, so zero-count ranks and groups
//     and groups of unequal size, e.g. 5 ranks on 3 nodes);
//   - split > 0 on synthetic shapes where a node holds two packages (and
//     caches shared by hyperthreads), with groups that are not rank ranges,
//     groups of one rank and nodes of different sizes;
//   - the refusals: one node, unequal groups for allgather, split beyond
//     the levels, recursive doubling among a number of groups that is not
//     a power of two.

#include <algorithm>
#include <atomic>
#include <bit>
#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "cct/error.hpp"
#include "cct/sdk/datatype.hpp"
#include "cct/sdk/subcomm.hpp"
#include "support/algorithms.hpp"
#include "support/collective_checks.hpp"
#include "support/harness.hpp"
#include "support/shared_array.hpp"

namespace {

using cct::test::expect;

constexpr double kTimeoutS = 120;
constexpr int kMaxRanks = 8;
constexpr int kNodeCounts[] = {2, 3};
constexpr const char* kOneNode =
    "the communicator is on one node: its own transport shares memory, use the single-node "
    "algorithms";
constexpr const char* kFlat = "needs a topology hierarchy and this communicator is flat";
// Two packages per node whose ranks (two per package) interleave: rank i of
// a node sits on core i % 2, so the packages' groups are not rank ranges.
constexpr const char* kInterleavedShape = "pack:2 core:1 pu:2";
constexpr const char* kPackShape = "pack:2 core:2 pu:1";
// Hyperthreads share an L2 inside a package: three levels on a node.
constexpr const char* kThreadsShape = "pack:2 l2:2 core:1 pu:2";

constexpr cct_datatype kTypes[] = {CCT_INT8,   CCT_INT16,  CCT_INT32,  CCT_INT64, CCT_UINT8,
                                   CCT_UINT16, CCT_UINT32, CCT_UINT64, CCT_FLOAT, CCT_DOUBLE};
constexpr cct_op kOps[] = {CCT_SUM, CCT_PROD, CCT_MIN, CCT_MAX};
constexpr std::size_t kLargeBytes = std::size_t{1} << 20;

// The node of each rank, as on_virtual_nodes places them.
std::vector<int> virtual_nodes(int n, int nodes) {
  std::vector<int> node_of;
  for (int r = 0; r < n; ++r) node_of.push_back(r * nodes / n);
  return node_of;
}

// The members of every group of a level, ascending, by group number.
std::vector<std::vector<int>> members_of(const cct_level& level, int size) {
  std::vector<std::vector<int>> members(static_cast<std::size_t>(level.groups));
  for (int r = 0; r < size; ++r) members.at(level.group_of[r]).push_back(r);
  return members;
}

// ------------------------------------------------------------ node levels

// Whether every group of `inner` lies inside one group of `outer` (cct_level:
// levels nest, innermost first).
bool nests(const cct_level& outer, const cct_level& inner, int size) {
  for (int r = 0; r < size; ++r)
    for (int s = 0; s < size; ++s)
      if (inner.group_of[r] == inner.group_of[s] && outer.group_of[r] != outer.group_of[s])
        return false;
  return true;
}

// A level's groups are numbered by their lowest rank, each lies in one
// node, and this rank's level transport (and GroupComm, LeadersComm) fits
// its group.
void check_level(const cct_comm& c, int i, const std::vector<int>& node_of) {
  const cct_level& level = c.levels[i];
  const std::string where = "level " + std::to_string(i) + " (" + cct::level_name(level.kind) + ")";
  const auto members = members_of(level, c.size);
  for (std::size_t g = 0; g < members.size(); ++g) {
    expect(!members[g].empty(), where + ": group " + std::to_string(g) + " is empty");
    if (g > 0) expect(members[g - 1][0] < members[g][0], where + ": groups out of order");
    for (int r : members[g])
      expect(node_of[r] == node_of[members[g][0]], where + ": a group spans nodes");
  }
  const auto& mine = members[level.group_of[c.rank]];
  const int index = static_cast<int>(std::find(mine.begin(), mine.end(), c.rank) - mine.begin());
  cct_transport_instance* tr = c.level_transport[i];
  expect((tr != nullptr) == (mine.size() > 1), where + ": level transport " +
                                                   (tr ? "set" : "missing") + " for a group of " +
                                                   std::to_string(mine.size()));
  if (tr != nullptr)
    expect(tr->rank == index && tr->size == static_cast<int>(mine.size()) && tr->shm != nullptr &&
               tr->p2p != nullptr,
           where + ": level transport is rank " + std::to_string(tr->rank) + " of " +
               std::to_string(tr->size));

  const cct::sdk::GroupComm group(c, i);
  expect(group.members() == mine && group.rank() == index && group.transport() == tr,
         where + ": GroupComm does not match the group");
  const cct_comm& gc = *group.raw();
  for (int j = 0; j < gc.nlevels; ++j) {
    const cct_level& sub = gc.levels[j];
    expect(sub.groups > 1 && sub.groups < gc.size, where + ": a GroupComm level does not split");
    expect(j == 0 || nests(sub, gc.levels[j - 1], gc.size),
           where + ": GroupComm levels do not nest");
    const auto sub_members = members_of(sub, gc.size);
    // The restriction of level j' < i: members grouped as the parent groups them.
    for (int a = 0; a < gc.size; ++a)
      for (int b = 0; b < gc.size; ++b) {
        bool together_in_parent = false;
        for (int jj = 0; jj < i; ++jj)
          if (c.levels[jj].kind == sub.kind)
            together_in_parent = c.levels[jj].group_of[mine[a]] == c.levels[jj].group_of[mine[b]];
        expect((sub.group_of[a] == sub.group_of[b]) == together_in_parent,
               where + ": GroupComm level " + std::to_string(j) + " groups differently");
      }
    if (gc.level_transport != nullptr && gc.level_transport[j] != nullptr) {
      const auto& sub_mine = sub_members[sub.group_of[gc.rank]];
      expect(gc.level_transport[j]->size == static_cast<int>(sub_mine.size()),
             where + ": GroupComm level transport of the wrong size");
    }
  }

  const cct::sdk::LeadersComm leaders(c, i);
  expect(leaders.size() == level.groups && leaders.rank() == level.group_of[c.rank],
         where + ": LeadersComm rank " + std::to_string(leaders.rank()) + " of " +
             std::to_string(leaders.size()));
  for (int g = 0; g < level.groups; ++g)
    expect(leaders.member(g) == members[g][0] && leaders.leader(g) == members[g][0],
           where + ": LeadersComm's member of group " + std::to_string(g));
  const cct_transport_instance* ltr = leaders.raw()->transport;
  expect(ltr->p2p != nullptr && ltr->shm == nullptr && (ltr->capabilities & CCT_CAP_SHM) == 0,
         where + ": the leaders' transport is not p2p only");
}

// The leaders of the node level, each group acted for by its highest rank,
// pass their comm ranks round a ring through the leaders' transport; a peer
// outside it is refused with the transport's reason.
void check_leaders_ring(const cct_comm& c) {
  const int top = c.nlevels - 1;
  cct::sdk::LeadersComm leaders(c, top);
  const auto members = members_of(c.levels[top], c.size);
  for (int g = 0; g < leaders.size(); ++g) leaders.set_member(g, members[g].back());
  bool refused = false;
  try {
    leaders.set_member(0, members[1][0]);
  } catch (const std::invalid_argument&) {
    refused = true;
  }
  expect(refused, "set_member accepted a rank of another group");
  const int me = leaders.rank();
  if (leaders.member(me) != c.rank) return;
  const cct::sdk::Comm lc(leaders.raw());
  const int n = lc.size();
  int got = -1;
  const int mine = c.rank;
  lc.sendrecv(&mine, sizeof mine, (me + 1) % n, &got, sizeof got, (me + n - 1) % n, 77);
  expect(got == leaders.member((me + n - 1) % n), "leader ring: got " + std::to_string(got) +
                                                      " from group " +
                                                      std::to_string((me + n - 1) % n));
  std::string why;
  try {
    cct_request req;
    lc.isend(&mine, sizeof mine, n, 78, req);
  } catch (const cct::sdk::TransportError& e) {
    why = e.what();
  }
  expect(why == "isend failed (status 2): peer " + std::to_string(n) + " is not a leader (0.." +
                    std::to_string(n - 1) + ")",
         "a bad peer was reported as '" + why + "'");
}

void check_node_levels(cct::Communicator& comm, int nodes) {
  const cct_comm& c = *comm.raw();
  const std::vector<int> node_of = virtual_nodes(c.size, nodes);
  const int spanned = static_cast<int>(std::set<int>(node_of.begin(), node_of.end()).size());
  bool shared = false;  // some node holds two ranks or more
  for (int r = 1; r < c.size; ++r) shared = shared || node_of[r] == node_of[r - 1];
  expect(comm.nodes() == spanned, "nodes() is " + std::to_string(comm.nodes()));
  if (spanned == 1 || !shared) {
    expect(c.level_transport == nullptr, "level transports on one node, or one rank per node");
    if (spanned > 1) expect(c.nlevels == 0, "levels with one rank per node");
    return;
  }
  expect(c.nlevels >= 1 && c.level_transport != nullptr, "no node level");
  const cct_level& last = c.levels[c.nlevels - 1];
  for (int r = 0; r < c.size; ++r)
    for (int s = 0; s < c.size; ++s)
      expect((last.group_of[r] == last.group_of[s]) == (node_of[r] == node_of[s]),
             "the last level is not the node partition");
  for (int i = 0; i < c.nlevels; ++i) {
    expect(i == 0 || nests(c.levels[i], c.levels[i - 1], c.size), "levels do not nest");
    check_level(c, i, node_of);
  }
  check_leaders_ring(c);
}

}  // namespace

TEST_CASE("a communicator over virtual nodes has node levels", "[multinode][topology]") {
  SECTION("1..8 ranks on 2 and 3 nodes of this machine's shape") {
    for (int nodes : kNodeCounts)
      for (int n = 1; n <= kMaxRanks; ++n) {
        INFO(n << " ranks on " << nodes << " virtual nodes");
        REQUIRE(cct::test::on_virtual_nodes(
                    n, nodes, [&](cct::Communicator& comm) { check_node_levels(comm, nodes); },
                    kTimeoutS) == "");
      }
  }
  SECTION("two packages per node: package groups that are not rank ranges") {
    auto body = [](cct::Communicator& comm) {
      const cct_comm& c = *comm.raw();
      const std::vector<int32_t> want{0, 1, 0, 1, 2, 3, 2, 3};
      bool found = false;
      for (int i = 0; i < c.nlevels; ++i)
        found =
            found || (c.levels[i].kind == CCT_LEVEL_PACKAGE &&
                      std::vector<int32_t>(c.levels[i].group_of, c.levels[i].group_of + 8) == want);
      expect(found, "no package level {0, 1, 0, 1, 2, 3, 2, 3}");
      check_node_levels(comm, 2);
    };
    REQUIRE(cct::test::on_virtual_nodes(8, 2, cct::Topology::synthetic(kInterleavedShape), body,
                                        kTimeoutS) == "");
  }
  SECTION("L2 and package levels inside a node, groups of one rank") {
    auto body = [](cct::Communicator& comm) {
      const cct_comm& c = *comm.raw();
      expect(c.levels[0].kind == CCT_LEVEL_L2 && c.levels[0].groups == 8,
             "levels of " + std::string(kThreadsShape));
      check_node_levels(comm, 2);
    };
    REQUIRE(cct::test::on_virtual_nodes(12, 2, cct::Topology::synthetic(kThreadsShape), body,
                                        kTimeoutS) == "");
  }
}

// ------------------------------------------------------------- the sweep

namespace {

// What can_use must answer for these parameter values ("" = runs).
std::string expected_refusal(const cct_comm& c, cct_collective coll,
                             const std::vector<int64_t>& p) {
  if (c.nlevels == 0) return kFlat;
  if (c.level_transport == nullptr) return kOneNode;
  if (p[0] >= c.nlevels)
    return "split " + std::to_string(p[0]) + " needs " + std::to_string(p[0] + 1) +
           " levels, the communicator has " + std::to_string(c.nlevels);
  if (coll == CCT_ALLGATHER) {
    const cct_level& l = c.levels[c.nlevels - 1 - p[0]];  // levels nest, the node's last
    const auto members = members_of(l, c.size);
    for (const auto& m : members)
      if (m.size() != members[0].size())
        return "groups of unequal size (" + std::to_string(members[0].size()) + " and " +
               std::to_string(m.size()) + " ranks): the leaders exchange equal blocks";
    if (p[2] == 2 && !std::has_single_bit(static_cast<unsigned>(l.groups)))
      return "recursive_doubling among " + std::to_string(l.groups) +
             " groups: needs a power of two";
  }
  return "";
}

std::string describe(const std::vector<int64_t>& p) {
  return "split=" + std::to_string(p[0]) + " inner=" + std::to_string(p[1]) +
         " outer=" + std::to_string(p[2]);
}

// Every combination of the candidates of the algorithm's parameters.
std::vector<std::vector<int64_t>> combinations(const cct::AlgorithmEntry& alg) {
  std::vector<std::vector<int64_t>> all{{}};
  for (uint32_t i = 0; i < alg.desc->nparams; ++i) {
    std::vector<std::vector<int64_t>> next;
    for (const auto& prefix : all)
      for (uint32_t k = 0; k < alg.desc->params[i].ncandidates; ++k) {
        next.push_back(prefix);
        next.back().push_back(alg.desc->params[i].candidates[k]);
      }
    all = std::move(next);
  }
  return all;
}

using PlanBody = std::function<void(cct::Communicator&, cct::Plan&, int index)>;

// On a rank: checks can_use for every combination, and runs body on a plan
// of each one that can run (index counts those, alike on every rank).
// Returns the number of plans run.
int each_plan(cct::Communicator& comm, cct_collective c, const PlanBody& body) {
  const cct::AlgorithmEntry& alg = cct::test::algorithm(c, "multinode");
  const cct_coll_args args = cct::test::coll_args(c, nullptr, nullptr, 0, CCT_INT32, 0, 0);
  int index = 0;
  for (const auto& params : combinations(alg)) {
    const std::string label = "multinode " + describe(params);
    const std::string got = cct::why_unusable(alg, comm, args, params);
    const std::string want = expected_refusal(*comm.raw(), c, params);
    expect(got == want, label + ": can_use said '" + got + "', want '" + want + "'");
    if (!got.empty()) continue;
    cct::Plan plan(alg, comm, params);
    try {
      body(comm, plan, index++);
    } catch (const std::exception& e) {
      throw std::runtime_error(label + ": " + e.what());
    }
  }
  return index;
}

// Every plan of collective c on 1..8 ranks over 2 and 3 virtual nodes; the
// body gets `big` (large counts, every datatype x operator) on a few.
void sweep(cct_collective c,
           const std::function<void(cct::Communicator&, cct::Plan&, int, bool)>& body) {
  for (int nodes : kNodeCounts)
    for (int n = 1; n <= kMaxRanks; ++n) {
      const bool big = (n == 5 && nodes == 2) || (n == 8 && nodes == 3);
      INFO(n << " ranks on " << nodes << " virtual nodes");
      auto run = [&](cct::Communicator& comm) {
        each_plan(comm, c, [&](cct::Communicator& cm, cct::Plan& plan, int index) {
          body(cm, plan, index, big);
        });
      };
      REQUIRE(cct::test::on_virtual_nodes(n, nodes, run, kTimeoutS) == "");
    }
}

// The same on `n` ranks over `nodes` nodes of `shape`, which must give the
// communicator `levels` levels (the node's and `levels` - 1 inside).
void on_shape(const char* shape, int n, int nodes, int levels, cct_collective c,
              const std::function<void(cct::Communicator&, cct::Plan&, int, bool)>& body) {
  INFO(n << " ranks on " << nodes << " virtual nodes of " << shape);
  auto run = [&](cct::Communicator& comm) {
    const int got = comm.raw()->nlevels;
    expect(got == levels, std::to_string(got) + " levels, want " + std::to_string(levels));
    each_plan(comm, c, [&](cct::Communicator& cm, cct::Plan& plan, int index) {
      body(cm, plan, index, n == 8);
    });
  };
  REQUIRE(cct::test::on_virtual_nodes(n, nodes, cct::Topology::synthetic(shape), run, kTimeoutS) ==
          "");
}

void on_shapes(cct_collective c,
               const std::function<void(cct::Communicator&, cct::Plan&, int, bool)>& body) {
  on_shape(kInterleavedShape, 8, 2, 2, c, body);
  on_shape(kPackShape, 7, 3, 2, c, body);
  on_shape(kThreadsShape, 12, 2, 3, c, body);
}

std::size_t elements(std::size_t bytes, cct_datatype dtype) {
  return bytes / cct::sdk::dtype_size(dtype) + 1;
}

// ----------------------------------------------------------- the bodies

// Counters of barrier rounds, shared by the forked ranks of one launch.
constexpr int kRounds = 12;
constexpr int kMaxPlans = 32;

using SharedCounters = cct::test::SharedArray<uint64_t>;  // kMaxPlans x kRounds

// Before each barrier every rank counts itself in; after it, all have.
void barriers(cct::Communicator& comm, cct::Plan& plan, int index, const SharedCounters& entered) {
  expect(index < kMaxPlans, "more barrier plans than counters");
  std::minstd_rand random(comm.rank() * 7919 + index);
  for (int round = 0; round < kRounds; ++round) {
    if (random() % 4 == 0) std::this_thread::sleep_for(std::chrono::microseconds(random() % 200));
    entered.atomic(index * kRounds + round).fetch_add(1);
    plan.run(cct::test::coll_args(CCT_BARRIER, nullptr, nullptr, 0, CCT_UINT8, 0, round));
    const uint64_t seen = entered.atomic(index * kRounds + round).load();
    expect(seen == static_cast<uint64_t>(comm.size()),
           "round " + std::to_string(round) + ": left after " + std::to_string(seen) + " entered");
  }
}

void bcasts(cct::Communicator& comm, cct::Plan& plan, int index, bool big) {
  uint32_t tag = 1;
  for (int root = 0; root < comm.size(); ++root) {
    int i = root + index;
    for (std::size_t count : {0, 1, 7})
      cct::test::check_bcast_call(comm, plan, root, count, kTypes[i++ % 10], tag++);
  }
  if (big)
    cct::test::check_bcast_call(comm, plan, comm.size() / 2, elements(kLargeBytes, CCT_INT32),
                                CCT_INT32, tag);
}

void reduces(cct::Communicator& comm, cct::Plan& plan, int index, bool big) {
  uint32_t tag = 1;
  for (int root = 0; root < comm.size(); ++root) {
    int i = root + index;
    for (std::size_t count : {0, 1, 7}) {
      cct::test::check_reduce_call(comm, plan, root, count, kTypes[i % 10], kOps[i % 4],
                                   (root + count) % 2 == 1, tag++);
      ++i;
    }
  }
  if (!big) return;
  cct::test::check_reduce_call(comm, plan, comm.size() - 1, elements(kLargeBytes, CCT_DOUBLE),
                               CCT_DOUBLE, CCT_SUM, true, tag++);
  if (index > 0) return;
  for (cct_datatype dtype : kTypes)
    for (cct_op op : kOps) {
      const int root = static_cast<int>(tag % comm.size());
      cct::test::check_reduce_call(comm, plan, root, 19, dtype, op, root % 2 == 0, tag);
      ++tag;
    }
}

void allreduces(cct::Communicator& comm, cct::Plan& plan, int index, bool big) {
  uint32_t tag = 1;
  int i = index;
  for (std::size_t count : {0, 1, 7})
    for (bool in_place : {false, true}) {
      cct::test::check_allreduce_call(comm, plan, count, kTypes[i % 10], kOps[i % 4], in_place,
                                      tag++);
      ++i;
    }
  if (!big) return;
  cct::test::check_allreduce_call(comm, plan, elements(kLargeBytes, CCT_INT64), CCT_INT64, CCT_MAX,
                                  true, tag++);
  if (index > 0) return;
  for (cct_datatype dtype : kTypes)
    for (cct_op op : kOps) {
      cct::test::check_allreduce_call(comm, plan, 19, dtype, op, tag % 2 == 0, tag);
      ++tag;
    }
}

void allgathers(cct::Communicator& comm, cct::Plan& plan, int index, bool big) {
  uint32_t tag = 1;
  int i = index;
  for (std::size_t count : {0, 1, 7})
    for (bool in_place : {false, true})
      cct::test::check_allgather_call(comm, plan, count, kTypes[i++ % 10], in_place, tag++);
  if (big)
    cct::test::check_allgather_call(comm, plan, elements(kLargeBytes / comm.size(), CCT_DOUBLE),
                                    CCT_DOUBLE, index % 2 == 0, tag++);
}

// reduce_scatter_block or reduce_scatter, by the plan's collective: blocks
// around 0, 1 and 7 elements (reduce_scatter: in every count pattern, so
// zero-count ranks and groups), out of place and in place.
void reduce_scatters(cct::Communicator& comm, cct::Plan& plan, int index, bool big) {
  const cct_collective c = plan.algorithm().desc->collective;
  const int size = comm.size();
  uint32_t tag = 1;
  for (const cct::test::CheckedCall& call :
       cct::test::calls_to_check(c, size, {0, 1, 7}, kTypes[index % 10], kOps[index % 4], true))
    cct::test::check_call(comm, plan, call, tag++);
  if (!big) return;
  const std::size_t large = elements(kLargeBytes / size, CCT_DOUBLE);
  cct::test::check_call(
      comm, plan, cct::test::calls_to_check(c, size, {large}, CCT_DOUBLE, CCT_SUM, false).front(),
      tag++);
  if (index > 0) return;
  for (cct_datatype dtype : kTypes)
    for (cct_op op : kOps) {
      const bool in_place = tag % 2 == 0;
      cct::test::check_call(
          comm, plan, cct::test::calls_to_check(c, size, {19}, dtype, op, in_place).back(), tag++);
    }
}

// The calls every allgatherv algorithm is checked with where `big`, else
// blocks around 0, 1 and 7 elements in every count pattern.
void allgathervs(cct::Communicator& comm, cct::Plan& plan, int index, bool big) {
  if (big) {
    cct::test::check_vector_calls(comm, plan);
    return;
  }
  uint32_t tag = 1;
  for (const cct::test::CheckedCall& call : cct::test::calls_to_check(
           CCT_ALLGATHERV, comm.size(), {0, 1, 7}, kTypes[index % 10], CCT_SUM, true))
    cct::test::check_call(comm, plan, call, tag++);
}

}  // namespace

TEST_CASE("barrier multinode", "[multinode][barrier][algorithms]") {
  const SharedCounters entered(kMaxPlans * kRounds);
  auto body = [&](cct::Communicator& comm, cct::Plan& plan, int index, bool) {
    barriers(comm, plan, index, entered);
  };
  for (int nodes : kNodeCounts)
    for (int n = 1; n <= kMaxRanks; ++n) {
      INFO(n << " ranks on " << nodes << " virtual nodes");
      entered.clear();
      auto run = [&](cct::Communicator& comm) {
        each_plan(comm, CCT_BARRIER, [&](cct::Communicator& cm, cct::Plan& plan, int index) {
          barriers(cm, plan, index, entered);
        });
      };
      REQUIRE(cct::test::on_virtual_nodes(n, nodes, run, kTimeoutS) == "");
    }
  const std::tuple<const char*, int, int, int> shapes[] = {
      {kInterleavedShape, 8, 2, 2}, {kPackShape, 7, 3, 2}, {kThreadsShape, 12, 2, 3}};
  for (auto [shape, n, nodes, levels] : shapes) {
    entered.clear();
    on_shape(shape, n, nodes, levels, CCT_BARRIER, body);
  }
}

TEST_CASE("bcast multinode", "[multinode][bcast][algorithms]") {
  sweep(CCT_BCAST, bcasts);
  on_shapes(CCT_BCAST, bcasts);
}

TEST_CASE("reduce multinode", "[multinode][reduce][algorithms]") {
  sweep(CCT_REDUCE, reduces);
  on_shapes(CCT_REDUCE, reduces);
}

TEST_CASE("allreduce multinode", "[multinode][allreduce][algorithms]") {
  sweep(CCT_ALLREDUCE, allreduces);
  on_shapes(CCT_ALLREDUCE, allreduces);
}

TEST_CASE("allgather multinode", "[multinode][allgather][algorithms]") {
  sweep(CCT_ALLGATHER, allgathers);
  on_shapes(CCT_ALLGATHER, allgathers);
}

TEST_CASE("reduce_scatter_block multinode", "[multinode][reduce_scatter_block][algorithms]") {
  sweep(CCT_REDUCE_SCATTER_BLOCK, reduce_scatters);
  on_shapes(CCT_REDUCE_SCATTER_BLOCK, reduce_scatters);
}

TEST_CASE("reduce_scatter multinode", "[multinode][reduce_scatter][algorithms]") {
  sweep(CCT_REDUCE_SCATTER, reduce_scatters);
  on_shapes(CCT_REDUCE_SCATTER, reduce_scatters);
}

TEST_CASE("allgatherv multinode", "[multinode][allgatherv][algorithms]") {
  sweep(CCT_ALLGATHERV, allgathervs);
  on_shapes(CCT_ALLGATHERV, allgathervs);
}

// The refusals, spelled out (the sweeps check them wherever they arise).
TEST_CASE("multinode refusals", "[multinode][algorithms]") {
  const std::vector<int64_t> defaults{0, 0, 0};
  SECTION("one node: levels, but no level transports") {
    auto body = [&](cct::Communicator& comm) {
      expect(comm.raw()->nlevels > 0 && comm.raw()->level_transport == nullptr, "one node");
      for (cct_collective c : {CCT_BARRIER, CCT_BCAST, CCT_REDUCE, CCT_ALLREDUCE, CCT_ALLGATHER,
                               CCT_REDUCE_SCATTER_BLOCK, CCT_REDUCE_SCATTER, CCT_ALLGATHERV})
        cct::test::expect_refused(comm, c, "multinode", defaults, kOneNode);
    };
    const cct::Topology pack = cct::Topology::synthetic(kPackShape);
    CHECK(cct::test::on_ranks(4, pack, body, kTimeoutS) == "");
    CHECK(cct::test::on_virtual_nodes(4, 1, pack, body, kTimeoutS) == "");
  }
  SECTION("unequal nodes, split beyond the levels, parameters out of range") {
    auto body = [&](cct::Communicator& comm) {
      expect(comm.raw()->nlevels == 1, "one level");
      cct::test::expect_refused(
          comm, CCT_ALLGATHER, "multinode", defaults,
          "groups of unequal size (2 and 1 ranks): the leaders exchange equal blocks");
      cct::test::expect_refused(comm, CCT_BCAST, "multinode", {1, 0, 0},
                                "split 1 needs 2 levels, the communicator has 1");
      cct::test::expect_refused(comm, CCT_REDUCE, "multinode", {3, 0, 0},
                                "split 3 is not one of 0..2");
      cct::test::expect_refused(comm, CCT_BARRIER, "multinode", {0, 4, 0},
                                "inner 4 is not one of 0..3");
      cct::test::expect_refused(comm, CCT_ALLREDUCE, "multinode", {0, 0, -1},
                                "outer -1 is not one of 0..2");
    };
    CHECK(cct::test::on_virtual_nodes(3, 2, body, kTimeoutS) == "");
  }
  SECTION("recursive doubling among three nodes") {
    auto body = [&](cct::Communicator& comm) {
      cct::test::expect_refused(comm, CCT_ALLGATHER, "multinode", {0, 0, 2},
                                "recursive_doubling among 3 groups: needs a power of two");
    };
    CHECK(cct::test::on_virtual_nodes(6, 3, body, kTimeoutS) == "");
  }
}
