#include "app.hpp"

#include <stdexcept>

#include "cct/simulate.hpp"

namespace cct::rio_tools {

// The fabric's tuned profile (or CCT_PROFILE's) and CCT_FORCE choose, as
// for any program on this platform.
std::unique_ptr<Runtime> runtime_on(const SimulatedFabric& fabric,
                                    const std::shared_ptr<Communicator>& comm) {
  return std::make_unique<Runtime>(
      fabric.registry(), comm, Runtime::Options{},
      simulated_selector(fabric.registry(), fabric.transport(), fabric.platform(), comm->size()));
}

AppReport run_app(const SimulatedFabric& fabric, const std::string& name, int ranks,
                  const AppBody& body) {
  AppReport report{.name = name, .ranks = ranks};
  report.failure =
      fabric.run(ranks, [&](Bootstrap& boot, const std::shared_ptr<Communicator>& comm) {
        const CallCost cost = measure(boot, *comm, [&] { body(boot, comm); });
        if (comm->rank() == 0) report.cost = cost;
      });
  return report;
}

}  // namespace cct::rio_tools
