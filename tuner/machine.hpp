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

// The hwloc synthetic description of a machine summarised by `summary`
// ("pack:1 numa:1 l3:1(32MiB) l2:2 core:2 pu:2": totals per level, the
// cache sizes ignored) as arities per level ("pack:1 numa:1 l3:1 l2:2
// core:1 pu:1"), or "" where a count does not divide into the next or the
// summary cannot be read: the machine rebuilt for ccautotune
// --from-results (from_results.hpp).
std::string synthetic_of(const std::string& summary);

}  // namespace cct::tuner
