// ccautotune host library: jobs on a simulated platform (a transport whose
// descriptor has simulate(), e.g. the RapidIO fabric simulator).
//
// All ranks of such a job run in this process, each as a fiber of the
// transport's simulation; a rank's body opens the transport with the
// bootstrap it is given and then uses communicators, plans and runtimes as
// on any other transport. Time on these communicators is virtual: use
// virtual_now(), not a clock.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "cct/bootstrap.hpp"
#include "cct/communicator.hpp"
#include "cct/launcher.hpp"
#include "cct/profile.hpp"
#include "cct/registry.hpp"

namespace cct {

// Whether the transport simulates a platform (its descriptor has simulate()).
bool is_simulated(const TransportEntry& transport);

struct SimulatedPlatform {
  std::string description;  // the transport's canonical description (YAML)
  std::string fingerprint;  // 16 hex digits of its hash: what profiles are keyed by
};

// The platform `config` names (for rapidio_sim a fabric preset or YAML
// file; "" the default), without running anything. Throws cct::Error with
// the transport's reason when the config is bad or the transport does not
// simulate.
SimulatedPlatform describe_simulated(const TransportEntry& transport, const std::string& config);

struct SimulateOptions {
  int ranks = 0;       // 0: every endpoint of the platform
  std::string config;  // as for describe_simulated
};

// Runs body(bootstrap) once per simulated rank; a rank fails when body
// returns non-zero or throws (the exception's text is kept). The result
// names each failed rank and why, deadlocks included.
LaunchResult launch_simulated(const TransportEntry& transport, const SimulateOptions& opts,
                              const std::function<int(Bootstrap&)>& body);

// Inside a simulated job's body: opens the transport on boot and makes a
// flat communicator of boot's ranks (no topology levels: the simulated
// DSPs share no caches).
std::shared_ptr<Communicator> simulated_communicator(const TransportEntry& transport,
                                                     Bootstrap& boot);

// What the runtime on a simulated communicator of `size` ranks selects
// from: CCT_PROFILE's profile, else the one keyed by the platform's
// fingerprint in the profile directories (none: built-in defaults), and
// CCT_FORCE's rules. Throws cct::Error for a malformed profile or rule.
Selector simulated_selector(const Registry& registry, const TransportEntry& transport,
                            const SimulatedPlatform& platform, int size);

// The instance's virtual time in seconds, or nullopt when it runs in real
// time (every transport between processes).
std::optional<double> virtual_now(const TransportInstance& transport);

// On a simulated platform whose transport offers it (cct_sim_ops.quiesce),
// waits, collectively, until nothing moves on it, every rank then at one
// virtual time, and returns true; false elsewhere (nothing done). Throws
// cct::Error where the transport fails.
bool quiesce(const TransportInstance& transport);

// The simulation's statistics as YAML (see cct_sim_ops.stats), or "" for
// a transport in real time.
std::string simulation_stats(const TransportInstance& transport);

}  // namespace cct
