#include "app.hpp"

#include <cstdlib>
#include <stdexcept>

#include "cct/profile.hpp"

namespace cct::rio_tools {

std::unique_ptr<Runtime> runtime_on(const SimulatedFabric& fabric,
                                    const std::shared_ptr<Communicator>& comm) {
  const char* force = std::getenv("CCT_FORCE");
  Selector selector(Profile{}, parse_force(force == nullptr ? "" : force, &fabric.registry()),
                    fabric.registry(), fabric.transport().desc->name, comm->size());
  return std::make_unique<Runtime>(fabric.registry(), comm, Runtime::Options{},
                                   std::move(selector));
}

void expect(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what);
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
