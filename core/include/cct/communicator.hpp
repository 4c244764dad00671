// ccautotune host library: a communicator (ranks + an open transport +
// topology levels) and plans of algorithms prepared on it.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cct/abi/algorithm.h"
#include "cct/bootstrap.hpp"
#include "cct/registry.hpp"
#include "cct/topology.hpp"

namespace cct {

// An open transport instance; closes it (collectively) on destruction.
class TransportInstance {
 public:
  // Collective over the bootstrap's ranks. Throws cct::Error with the
  // transport's reason when probe() or open() refuses. `host`: an open
  // transport over the same ranks that this one moves its data through
  // (cct_bootstrap.host: the cuda transport's staging), kept open as long
  // as this one.
  TransportInstance(const TransportEntry& entry, Bootstrap& boot,
                    std::shared_ptr<TransportInstance> host = nullptr);
  ~TransportInstance();
  TransportInstance(const TransportInstance&) = delete;
  TransportInstance& operator=(const TransportInstance&) = delete;

  cct_transport_instance* raw() const { return inst_; }
  const TransportEntry& entry() const { return entry_; }

 private:
  TransportEntry entry_;
  std::shared_ptr<TransportInstance> host_;
  cct_transport_instance* inst_ = nullptr;
};

// Where a rank's node is, for a communicator that may span nodes: `node`
// numbers this rank's node the same way on every rank (e.g. a bootstrap's
// node()), and `local` is the transport to open inside each node (shm).
struct NodePlacement {
  int node = 0;
  const TransportEntry* local = nullptr;  // null: the ranks are taken to share one node
};

// The placement of boot's rank: on one node when boot says so, else its
// node and the registry's shm transport to open inside each node. Throws
// cct::Error when the ranks span nodes and no shm transport was loaded.
NodePlacement placement_of(const Bootstrap& boot, const Registry& registry);

class Communicator {
 public:
  // Collective. Exchanges where each rank is bound (pu_of_rank, -1 when
  // unbound) to derive the topology levels. When `placement` puts the ranks
  // on more than one node, the levels are split by node and end with the
  // node level, and placement.local is opened over this rank's group at
  // every level (cct_comm.level_transport).
  Communicator(Bootstrap& boot, std::shared_ptr<TransportInstance> transport, const Topology& topo,
               int my_pu, NodePlacement placement = {});

  const cct_comm* raw() const { return &comm_; }
  int rank() const { return comm_.rank; }
  int size() const { return comm_.size; }
  const std::vector<LevelPartition>& levels() const { return levels_; }
  TransportInstance& transport() const { return *transport_; }
  // What algorithms bound here may use: the transport's capabilities, and
  // CCT_CAP_LIBRARY where the bootstrap gave a collective library.
  uint64_t capabilities() const;
  // Nodes the ranks span (1 unless a NodePlacement said otherwise).
  int nodes() const { return nodes_; }

 private:
  void open_level_transports(Bootstrap& boot, const TransportEntry& local);

  std::shared_ptr<TransportInstance> transport_;
  std::vector<LevelPartition> levels_;
  std::vector<cct_level> c_levels_;
  int nodes_ = 1;
  std::vector<std::unique_ptr<TransportInstance>> level_instances_;
  std::vector<cct_transport_instance*> level_transport_;
  cct_comm comm_{};
};

// Why an algorithm cannot run a call, or empty when it can: checks the
// communicator's capabilities, the declared limits and rank bounds, then asks
// the algorithm's can_use().
std::string why_unusable(const AlgorithmEntry& alg, const Communicator& comm,
                         const cct_coll_args& args, std::span<const int64_t> params);

// An algorithm prepared on a communicator with parameter values.
class Plan {
 public:
  // Collective. Throws cct::Error with the algorithm's message.
  Plan(const AlgorithmEntry& alg, const Communicator& comm, std::vector<int64_t> params);
  ~Plan();
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  // Collective. Throws cct::Error naming the algorithm and its message.
  void run(const cct_coll_args& args);
  const AlgorithmEntry& algorithm() const { return alg_; }
  const std::vector<int64_t>& params() const { return params_; }

 private:
  AlgorithmEntry alg_;
  std::vector<int64_t> params_;
  void* plan_ = nullptr;
};

}  // namespace cct
