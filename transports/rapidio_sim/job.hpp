// rapidio_sim: one simulated job (cct_sim_job) in progress on this thread.
#pragma once

#include <cstdint>

#include "cct/abi/transport.h"
#include "rapidio_sim/engine/engine.hpp"

namespace cct::rio {

// What the ranks of a job share besides the engine: the next communicator
// context. open() on rank 0 of a communicator takes one; the others learn
// it through the bootstrap.
struct Job {
  Engine& engine;
  uint32_t next_context = 0;
};

// The job whose fibers run on this thread, else nullptr: open() and probe()
// refuse everything else, since a simulated DSP exists only in its job.
Job* current_job();

// cct_transport_desc.simulate.
cct_status simulate(cct_sim_job* job, cct_error* err);

}  // namespace cct::rio
