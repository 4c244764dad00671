// Test harness: run a body on N local ranks over the shm transport, or on
// N simulated ranks of the RapidIO fabric simulator.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "cct/communicator.hpp"
#include "cct/registry.hpp"
#include "cct/topology.hpp"

namespace cct::test {

// The registry of the build tree's plugins, loaded once per test process.
Registry& registry();

// The algorithm `name` of collective c; throws if it is not registered.
const AlgorithmEntry& algorithm(cct_collective c, std::string_view name);

// Launches n ranks (bound to PUs, over the shm transport), builds a
// Communicator on each and runs body on it. Returns "" when every rank
// returned normally, else the launcher's description of the failure (a rank
// that threw prints its message, prefixed by its rank, to stderr). Use as
//   REQUIRE(cct::test::on_ranks(4, [&](cct::Communicator& c) {...}) == "");
std::string on_ranks(int n, const std::function<void(Communicator&)>& body, double timeout_s = 300);

// The same on a given topology (e.g. Topology::synthetic("pack:2 l3:2
// core:4 pu:1")): rank r sits on topo.pu_for_rank(r, n), so the
// communicator's levels are those of that shape. Ranks are bound only when
// topo describes this machine.
std::string on_ranks(int n, const Topology& topo, const std::function<void(Communicator&)>& body,
                     double timeout_s = 300);

// Runs body on n local ranks that pretend to be spread over `nodes`
// machines: rank r is on node r * nodes / n (consecutive ranks share a
// node; nodes may hold different numbers of ranks, and some none when n <
// nodes). The shm transport over all n ranks plays the network (the
// communicator's transport), and the communicator gets
// NodePlacement{node, shm}: its levels are split by node, and shm is opened
// over each rank's group at every level (cct_comm.level_transport). Within
// its node a rank sits where on_ranks would put it among that node's
// ranks. Returns as on_ranks does.
std::string on_virtual_nodes(int n, int nodes, const std::function<void(Communicator&)>& body,
                             double timeout_s = 300);
// The same with every node of topo's shape (e.g. Topology::synthetic(
// "pack:2 core:2 pu:1")): rank r sits on topo.pu_for_rank(i, m), i its
// index among its node's m ranks.
std::string on_virtual_nodes(int n, int nodes, const Topology& topo,
                             const std::function<void(Communicator&)>& body,
                             double timeout_s = 300);

// Runs body on n ranks of the RapidIO fabric simulator (transport
// "rapidio_sim") on `fabric`, a preset such as "tree:4": each rank is a
// fiber of this process with a flat communicator, in virtual time. Returns
// "" or the failure (ranks that threw, with their messages; a deadlock), as
// on_ranks does. Report checks with expect(), never with Catch2 macros.
std::string on_simulated_ranks(int n, const std::string& fabric,
                               const std::function<void(Communicator&)>& body);

// Throws std::runtime_error(what) when !ok: the way a rank reports a check.
void expect(bool ok, const std::string& what);

}  // namespace cct::test
