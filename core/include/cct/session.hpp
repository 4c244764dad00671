// ccautotune runtime: everything a process needs to call collectives,
// built from its environment.
//
// A process started by cclaunch (or launch_local_exec) joins that launch;
// any other process is a job of one rank. The session loads the plugins
// (CCT_PLUGIN_PATH), reads the topology (CCT_TOPOLOGY), binds the rank to a
// PU (unless told to keep the current binding), opens the shm transport and
// builds the runtime. With CCT_STATS=1 rank
// 0 prints the runtime's stats table to stderr when the session ends.
#pragma once

#include <memory>
#include <string>

#include "cct/bootstrap.hpp"
#include "cct/communicator.hpp"
#include "cct/registry.hpp"
#include "cct/runtime.hpp"
#include "cct/topology.hpp"

namespace cct {

class Session {
 public:
  // Throws cct::Error naming what is missing or malformed.
  static std::unique_ptr<Session> from_environment();
  // Where a rank runs: bound by the session to the PU the topology suggests
  // (launched jobs), or left where it is (inside an MPI program, whose
  // launcher placed it).
  enum class Binding { kBindToPu, kKeepCurrent };
  // Collective over boot's ranks, on the named transport plugin (shm: one
  // node; mpi: any ranks of an MPI program).
  explicit Session(std::unique_ptr<Bootstrap> boot, Binding binding = Binding::kBindToPu,
                   const std::string& transport = "shm");
  // Collective: destroys plans and closes the transport on every rank.
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  Runtime& runtime() { return *runtime_; }
  // What the runtime runs on, for tools that run plans directly (ccbench).
  const Registry& registry() const { return registry_; }
  const Communicator& communicator() const { return *comm_; }

 private:
  Registry registry_;
  Topology topology_;
  std::unique_ptr<Bootstrap> boot_;
  std::shared_ptr<Communicator> comm_;
  std::unique_ptr<Runtime> runtime_;
  bool print_stats_ = false;
};

}  // namespace cct
