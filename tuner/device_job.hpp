// ccautotune tuner: a job on a device transport (one granting
// CCT_CAP_DEVICE: cuda), whose rules say what the runtime runs where every
// rank of a call passes device memory.
//
// The device transport stages device memory through a host transport over
// the same ranks (cct_bootstrap.host), opened first: the one the runtime
// opens for such ranks (shm on one node, mpi across nodes). The space is
// enumerate_device's: the algorithms that take device memory on the
// device transport, and every host algorithm on the host one, timed on
// host copies of the device buffers, as the runtime runs them.
#pragma once

#include <map>
#include <string>

#include "cct/bootstrap.hpp"
#include "cct/communicator.hpp"
#include "cct/registry.hpp"
#include "cct/topology.hpp"
#include "tuner/job_progress.hpp"
#include "tuner/options.hpp"
#include "tuner/results_csv.hpp"

namespace cct::tuner {

bool is_device_transport(const TransportEntry& transport);

// Opens the host transport and `device` over it on boot's ranks (this rank
// on PU `pu`, -1: unbound; `placement` as for any communicator) and
// measures the device space (measure_space). Collective; throws
// cct::Error where a transport does not open.
void measure_on_device(const Registry& registry, const TransportEntry& device, Bootstrap& boot,
                       const Topology& topo, int pu, const NodePlacement& placement,
                       const Options& opts, const std::map<std::string, ResultRow>& known,
                       JobProgress* progress = nullptr);

}  // namespace cct::tuner
