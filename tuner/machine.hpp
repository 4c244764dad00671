// ccautotune tuner: the machine section of a profile, from the topology.
#pragma once

#include <string>

#include "cct/profile.hpp"
#include "cct/topology.hpp"

namespace cct::tuner {

// fingerprint, summary, one node of ranks_per_node ranks, and the shape the
// summary gives: packages and NUMA nodes (1 where hwloc shows none), cores,
// PUs, and the L3 and L2 caches as "L3 32M x1, L2 1M x2" (no size where
// the caches of a level differ).
MachineInfo describe_machine(const Topology& topo, int ranks_per_node);

}  // namespace cct::tuner
