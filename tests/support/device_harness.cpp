#include "support/device_harness.hpp"

#include <cstring>
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

namespace {

// n ranks, each with shm and `device` over it; body gets the bootstrap and
// both.
std::string launch_with_device(
    int n, const TransportEntry& device,
    const std::function<void(Bootstrap&, std::shared_ptr<TransportInstance> host,
                             std::shared_ptr<TransportInstance> opened)>& body) {
  const TransportEntry* shm = registry().find_transport("shm");
  if (shm == nullptr) return "the shm transport is not registered";
  return launch_local({.ranks = n, .timeout_s = 300},
                      [&](Bootstrap& boot) {
                        auto host = std::make_shared<TransportInstance>(*shm, boot);
                        body(boot, host, std::make_shared<TransportInstance>(device, boot, host));
                        return 0;
                      })
      .error;
}

const Topology& this_machine() {
  static const Topology topo = Topology::discover();
  return topo;
}

}  // namespace

std::string on_ranks_with_device(
    int n, const TransportEntry& device,
    const std::function<void(Communicator&, std::shared_ptr<const Communicator>)>& body) {
  return launch_with_device(n, device, [&](Bootstrap& boot, auto host, auto opened) {
    Communicator comm(boot, host, this_machine(), -1);
    body(comm, std::make_shared<Communicator>(boot, opened, this_machine(), -1));
  });
}

std::string on_device_ranks(int n, const TransportEntry& device,
                            const std::function<void(Communicator&)>& body) {
  return launch_with_device(n, device, [&](Bootstrap& boot, auto, auto opened) {
    Communicator comm(boot, opened, this_machine(), -1);
    body(comm);
  });
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

void write_bytes(device::Backend& backend, const device::Buffer& memory,
                 const std::vector<unsigned char>& bytes) {
  if (bytes.empty()) return;  // memcpy takes no null pointer, even for 0 bytes
  if (backend.kind_of(memory.data()) == CCT_MEMORY_HOST) {
    std::memcpy(memory.data(), bytes.data(), bytes.size());
    return;
  }
  device::UniqueStream stream(backend);
  backend.copy(memory.data(), bytes.data(), bytes.size(), CCT_COPY_HOST_TO_DEVICE, stream.get());
  backend.synchronize(stream.get());
}

std::vector<unsigned char> read_bytes(device::Backend& backend, const device::Buffer& memory) {
  std::vector<unsigned char> bytes(memory.bytes());
  if (bytes.empty()) return bytes;
  if (backend.kind_of(memory.data()) == CCT_MEMORY_HOST) {
    std::memcpy(bytes.data(), memory.data(), bytes.size());
    return bytes;
  }
  device::UniqueStream stream(backend);
  backend.copy(bytes.data(), memory.data(), bytes.size(), CCT_COPY_DEVICE_TO_HOST, stream.get());
  backend.synchronize(stream.get());
  return bytes;
}

}  // namespace cct::test
