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
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cct/bootstrap.hpp"
#include "cct/communicator.hpp"
#include "cct/profile.hpp"
#include "cct/registry.hpp"
#include "cct/runtime.hpp"
#include "cct/topology.hpp"

namespace cct {

// What the sessions of one process share: the plugins, the machine's
// topology, its profile (CCT_PROFILE, else the one matching the
// fingerprint; none: built-in defaults) and CCT_FORCE. Loading them takes
// tens of milliseconds, and an MPI program may make a communicator for
// every few calls.
struct SessionBasis {
  // From the environment. Throws cct::Error naming what is missing or
  // malformed. `speaks`: whether this process tells the job about the
  // environment (the profile in effect, `problems`): one process of a job
  // says it, not every process (the MPI interposer: rank 0 of the world).
  static std::shared_ptr<const SessionBasis> load(bool speaks = true);

  Registry registry;
  Topology topology;
  Profile profile;
  bool profile_found = false;
  // The file in effect (or unreadable: profile_found false; path "" for
  // none) and why that one.
  ProfileChoice profile_choice;
  std::vector<ForceRule> force;
  Runtime::Log log = Runtime::Log::kOff;
  double timeout_s = 0;  // CCT_TIMEOUT (0: waits have no deadline)
  // What the environment got wrong, each costing only itself (an unreadable
  // profile: built-in defaults; a bad CCT_FORCE rule: that rule; a bad
  // CCT_LOG: no log), for rank 0 of each session to warn about once.
  std::vector<std::string> problems;
  bool speaks = true;
  // Prints "cct: <text>" to stderr unless this process already printed it:
  // the sessions' warnings (no profile, a rule left out, another node
  // count's rules) come once per process, not once per communicator (an MPI
  // program may make hundreds).
  void warn_once(const std::string& text) const;

 private:
  SessionBasis();

  mutable std::mutex warned_mutex_;
  mutable std::set<std::string> warned_;
};

class Session {
 public:
  // Throws cct::Error naming what is missing or malformed.
  static std::unique_ptr<Session> from_environment();
  // Where a rank runs: bound by the session to the PU the topology suggests
  // (launched jobs), or left where it is (inside an MPI program, whose
  // launcher placed it).
  enum class Binding { kBindToPu, kKeepCurrent };
  // Collective over boot's ranks, on the named transport plugin (shm: one
  // node; mpi: any ranks of an MPI program). basis: shared with the other
  // sessions of the process, or null to load one.
  explicit Session(std::unique_ptr<Bootstrap> boot, Binding binding = Binding::kBindToPu,
                   const std::string& transport = "shm",
                   std::shared_ptr<const SessionBasis> basis = nullptr);
  // Collective: destroys plans and closes the transport on every rank.
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  Runtime& runtime() { return *runtime_; }
  // With CCT_STATS, rank 0's table rows, which the session then no longer
  // prints when it ends: for a caller that gathers the tables of many
  // sessions into one (the MPI interposer). Empty on other ranks, without
  // CCT_STATS, or when nothing ran.
  std::vector<StatsRow> take_stats();
  // What the runtime runs on, for tools that run plans directly (ccbench).
  const Registry& registry() const { return basis_->registry; }
  const Communicator& communicator() const { return *comm_; }

 private:
  void open_device(const std::shared_ptr<TransportInstance>& host, int pu);

  std::shared_ptr<const SessionBasis> basis_;
  std::unique_ptr<Bootstrap> boot_;
  std::shared_ptr<Communicator> comm_;
  std::unique_ptr<Runtime> runtime_;
  bool print_stats_ = false;
};

}  // namespace cct
