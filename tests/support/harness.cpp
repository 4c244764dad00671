#include "support/harness.hpp"

#include <memory>
#include <stdexcept>

#include "cct/error.hpp"
#include "cct/launcher.hpp"
#include "cct/simulate.hpp"
#include "cct/topology.hpp"

namespace cct::test {

Registry& registry() {
  static Registry* reg = [] {
    auto* r = new Registry();
    r->load_default();
    return r;
  }();
  return *reg;
}

const AlgorithmEntry& algorithm(cct_collective c, std::string_view name) {
  const AlgorithmEntry* entry = registry().find_algorithm(c, name);
  if (entry == nullptr)
    throw std::runtime_error(std::string("algorithm not registered: ") + collective_name(c) + "/" +
                             std::string(name));
  return *entry;
}

std::string on_ranks(int n, const std::function<void(Communicator&)>& body, double timeout_s) {
  // Discovered once in the parent; the forked ranks inherit it.
  static const Topology topo = Topology::discover();
  return on_ranks(n, topo, body, timeout_s);
}

std::string on_ranks(int n, const Topology& topo, const std::function<void(Communicator&)>& body,
                     double timeout_s) {
  const TransportEntry* shm = registry().find_transport("shm");
  if (shm == nullptr) return "the shm transport is not registered";
  LaunchResult result = launch_local({.ranks = n, .timeout_s = timeout_s}, [&](Bootstrap& boot) {
    int pu = topo.pu_for_rank(boot.rank(), boot.size());
    // A synthetic shape cannot bind, and its ranks keep their place in it.
    if (!topo.bind_to_pu(pu) && topo.is_this_machine()) pu = -1;
    auto transport = std::make_shared<TransportInstance>(*shm, boot);
    Communicator comm(boot, transport, topo, pu);
    body(comm);
    return 0;
  });
  return result.error;
}

std::string on_virtual_nodes(int n, int nodes, const std::function<void(Communicator&)>& body,
                             double timeout_s) {
  static const Topology topo = Topology::discover();
  return on_virtual_nodes(n, nodes, topo, body, timeout_s);
}

std::string on_virtual_nodes(int n, int nodes, const Topology& topo,
                             const std::function<void(Communicator&)>& body, double timeout_s) {
  const TransportEntry* shm = registry().find_transport("shm");
  if (shm == nullptr) return "the shm transport is not registered";
  if (nodes < 1) return "on_virtual_nodes: nodes must be at least 1";
  LaunchResult result = launch_local({.ranks = n, .timeout_s = timeout_s}, [&](Bootstrap& boot) {
    const int node = boot.rank() * nodes / n;
    int index = 0, on_node = 0;  // this rank among its node's ranks, and their number
    for (int r = 0; r < n; ++r) {
      if (r * nodes / n != node) continue;
      if (r < boot.rank()) ++index;
      ++on_node;
    }
    int pu = topo.pu_for_rank(index, on_node);
    if (!topo.bind_to_pu(pu) && topo.is_this_machine()) pu = -1;
    auto transport = std::make_shared<TransportInstance>(*shm, boot);
    Communicator comm(boot, transport, topo, pu, NodePlacement{.node = node, .local = shm});
    body(comm);
    return 0;
  });
  return result.error;
}

std::string on_simulated_ranks(int n, const std::string& fabric,
                               const std::function<void(Communicator&)>& body) {
  const TransportEntry* sim = registry().find_transport("rapidio_sim");
  if (sim == nullptr) return "the rapidio_sim transport is not registered";
  LaunchResult result =
      launch_simulated(*sim, {.ranks = n, .config = fabric}, [&](Bootstrap& boot) {
        auto comm = simulated_communicator(*sim, boot);
        body(*comm);
        return 0;
      });
  return result.error;
}

void expect(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what);
}

}  // namespace cct::test
