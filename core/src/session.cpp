#include "cct/session.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iostream>

#include "cct/error.hpp"
#include "cct/launcher.hpp"

namespace cct {
namespace {

// The bootstrap of a job of one rank: nothing to exchange.
class SoloBootstrap final : public Bootstrap {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string job_key() const override { return "cct-" + std::to_string(getpid()) + "-solo"; }
  void allgather(const void* send, void* recv, std::size_t bytes) override {
    if (bytes > 0) std::memcpy(recv, send, bytes);
  }
  void barrier() override {}
};

bool env_is_on(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

}  // namespace

std::unique_ptr<Session> Session::from_environment() {
  std::unique_ptr<Bootstrap> boot = bootstrap_from_environment();
  if (!boot) boot = std::make_unique<SoloBootstrap>();
  return std::make_unique<Session>(std::move(boot));
}

Session::Session(std::unique_ptr<Bootstrap> boot)
    : topology_(Topology::discover()),
      boot_(std::move(boot)),
      print_stats_(env_is_on("CCT_STATS")) {
  registry_.load_default();
  const TransportEntry* shm = registry_.find_transport("shm");
  if (shm == nullptr)
    throw Error(
        "the shm transport plugin was not found (searched CCT_PLUGIN_PATH and the "
        "plugin directory beside libcct); run ccinfo to see what was loaded",
        CCT_ERR_UNSUPPORTED);
  int pu = topology_.pu_for_rank(boot_->rank(), boot_->size());
  if (!topology_.bind_to_pu(pu)) pu = -1;
  auto transport = std::make_shared<TransportInstance>(*shm, *boot_);
  comm_ = std::make_shared<Communicator>(*boot_, transport, topology_, pu);
  runtime_ = std::make_unique<Runtime>(registry_, comm_, Runtime::Options{.stats = print_stats_});
}

Session::~Session() {
  if (print_stats_ && runtime_->rank() == 0) runtime_->print_stats(std::cerr);
}

}  // namespace cct
