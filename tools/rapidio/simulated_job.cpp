#include "simulated_job.hpp"

#include <stdexcept>

#include "cct/error.hpp"

namespace cct::rio_tools {

void expect(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what);
}

SimulatedFabric::SimulatedFabric(std::string fabric) : fabric_(std::move(fabric)) {
  registry_.load_default();
  transport_ = registry_.find_transport("rapidio_sim");
  if (transport_ == nullptr) throw Error("the rapidio_sim transport plugin was not found");
  platform_ = describe_simulated(*transport_, fabric_);  // refuses a bad fabric before any job
}

std::string SimulatedFabric::run(
    int ranks,
    const std::function<void(Bootstrap&, const std::shared_ptr<Communicator>&)>& body) const {
  const LaunchResult result =
      launch_simulated(*transport_, {.ranks = ranks, .config = fabric_}, [&](Bootstrap& boot) {
        auto comm = simulated_communicator(*transport_, boot);
        body(boot, comm);
        return 0;
      });
  return result.error;
}

}  // namespace cct::rio_tools
