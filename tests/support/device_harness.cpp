#include "support/device_harness.hpp"

#include <stdexcept>

#include "cct/launcher.hpp"
#include "cct/topology.hpp"
#include "support/harness.hpp"

namespace cct::test {
namespace {

void ok(cct_status status, const cct_error& err, const char* what) {
  if (status != CCT_OK) throw std::runtime_error(std::string(what) + ": " + err.message);
}

}  // namespace

const TransportEntry& host_device_transport() {
  static Registry plugins;
  static const TransportEntry* found = [] {
    plugins.load_library(CCT_TEST_PLUGIN_DIR "/libcct_test_host_device.so");
    return plugins.find_transport("host_device");
  }();
  if (found == nullptr) throw std::runtime_error("the host_device test transport did not load");
  return *found;
}

std::string on_ranks_with_device(
    int n, const TransportEntry& device,
    const std::function<void(Communicator&, std::shared_ptr<TransportInstance>)>& body) {
  static const Topology topo = Topology::discover();
  const TransportEntry* shm = registry().find_transport("shm");
  if (shm == nullptr) return "the shm transport is not registered";
  return launch_local({.ranks = n, .timeout_s = 300},
                      [&](Bootstrap& boot) {
                        auto host = std::make_shared<TransportInstance>(*shm, boot);
                        auto opened = std::make_shared<TransportInstance>(device, boot, host);
                        Communicator comm(boot, host, topo, -1);
                        body(comm, opened);
                        return 0;
                      })
      .error;
}

std::string on_device_ranks(int n, const TransportEntry& device,
                            const std::function<void(Communicator&)>& body) {
  static const Topology topo = Topology::discover();
  const TransportEntry* shm = registry().find_transport("shm");
  if (shm == nullptr) return "the shm transport is not registered";
  return launch_local({.ranks = n, .timeout_s = 300},
                      [&](Bootstrap& boot) {
                        auto host = std::make_shared<TransportInstance>(*shm, boot);
                        auto opened = std::make_shared<TransportInstance>(device, boot, host);
                        Communicator comm(boot, opened, topo, -1);
                        body(comm);
                        return 0;
                      })
      .error;
}

DeviceMemory::DeviceMemory(cct_transport_instance* device, std::size_t bytes)
    : device_(device), bytes_(bytes) {
  cct_error err{};
  ok(device_->device->alloc(device_, bytes, &ptr_, &err), err, "device alloc");
}

DeviceMemory::~DeviceMemory() {
  device_->device->free(device_, ptr_);
}

void DeviceMemory::write(const std::vector<unsigned char>& bytes) const {
  if (bytes.size() > bytes_) throw std::runtime_error("write past the device memory's end");
  cct_error err{};
  ok(device_->device->copy(device_, ptr_, bytes.data(), bytes.size(), CCT_COPY_HOST_TO_DEVICE,
                           &err),
     err, "copy to the device");
  ok(device_->device->synchronize(device_, &err), err, "synchronize");
}

std::vector<unsigned char> DeviceMemory::read() const {
  std::vector<unsigned char> bytes(bytes_);
  cct_error err{};
  ok(device_->device->copy(device_, bytes.data(), ptr_, bytes_, CCT_COPY_DEVICE_TO_HOST, &err), err,
     "copy from the device");
  ok(device_->device->synchronize(device_, &err), err, "synchronize");
  return bytes;
}

}  // namespace cct::test
