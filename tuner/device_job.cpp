#include "tuner/device_job.hpp"

#include <memory>

#include "cct/error.hpp"
#include "tuner/job.hpp"
#include "tuner/plan_space.hpp"

namespace cct::tuner {

bool is_device_transport(const TransportEntry& transport) {
  return (transport.desc->capabilities & CCT_CAP_DEVICE) != 0;
}

void measure_on_device(const Registry& registry, const TransportEntry& device, Bootstrap& boot,
                       const Topology& topo, int pu, const NodePlacement& placement,
                       const Options& opts, const std::map<std::string, ResultRow>& known,
                       JobProgress* progress) {
  const char* host_name = boot.nodes() > 1 ? "mpi" : "shm";
  const TransportEntry* host_entry = registry.find_transport(host_name);
  if (host_entry == nullptr)
    throw Error(std::string(device.desc->name) + " stages device memory through the " + host_name +
                    " transport, whose plugin was not found",
                CCT_ERR_UNSUPPORTED);
  auto host = std::make_shared<TransportInstance>(*host_entry, boot);
  Communicator host_comm(boot, host, topo, pu, placement);
  Communicator device_comm(boot, std::make_shared<TransportInstance>(device, boot, host), topo, pu,
                           placement);
  measure_space(registry, device_comm,
                enumerate_device(registry, host_comm, device_comm, opts.filter), opts, known,
                progress, &host_comm);
}

}  // namespace cct::tuner
