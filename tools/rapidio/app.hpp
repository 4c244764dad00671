// What the applications of rio_apps share: their settings, how each reports
// a run, and the runtime they call collectives on.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "call_cost.hpp"
#include "cct/runtime.hpp"
#include "simulated_job.hpp"

namespace cct::rio_tools {

struct AppSettings {
  int ranks = 8;  // DSPs
  int n = 64;     // order of the matrices, a multiple of ranks
};

// One measured run of an application (or of one variant of it).
struct AppReport {
  std::string name;
  int ranks = 0;
  CallCost cost;        // of the whole computation, distribution included
  std::string failure;  // "" when the result matched the host's
};

// A runtime over comm that dispatches as an application's would: CCT_FORCE
// rules first, then the profile tuned on this fabric (CCT_PROFILE, else the
// one keyed by the fabric's fingerprint), else the built-in defaults.
std::unique_ptr<Runtime> runtime_on(const SimulatedFabric& fabric,
                                    const std::shared_ptr<Communicator>& comm);

// Runs body in a fresh job of `ranks` DSPs and measures it on every rank;
// the report carries rank 0's cost and the job's failure.
using AppBody = std::function<void(Bootstrap&, const std::shared_ptr<Communicator>&)>;
AppReport run_app(const SimulatedFabric& fabric, const std::string& name, int ranks,
                  const AppBody& body);

// (a) C = A x B: scatter of A's row blocks, bcast of B, gather of C; and
// the variant that reduces partial products of column and row blocks.
std::vector<AppReport> matrix_multiply(const SimulatedFabric& fabric, const AppSettings& s);
// (b) Fox's algorithm on a q x q grid of DSPs: A's blocks broadcast along
// rows, B's blocks rolled up the columns by p2p.
std::vector<AppReport> fox_multiply(const SimulatedFabric& fabric, const AppSettings& s);
// (c) A global sum by hand-written butterfly exchanges, and by the
// runtime's allreduce and reduce.
std::vector<AppReport> global_sum(const SimulatedFabric& fabric, const AppSettings& s);
// (d) A 36x36x3 image convolved with a 5x5x3 kernel by im2col rows
// scattered over the DSPs.
std::vector<AppReport> convolution(const SimulatedFabric& fabric, const AppSettings& s);

}  // namespace cct::rio_tools
