// Ranks with a device transport, for what runs on device buffers: the
// tests' host_device transport (the cuda transport's code on host memory
// posing as a device, tests/plugins) everywhere, the cuda transport where
// there is a GPU.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cct/communicator.hpp"
#include "cct/device/backend.hpp"

namespace cct::test {

// host_device, loaded once from the tests' plugin directory.
const TransportEntry& host_device_transport();

// As on_ranks, with `device` opened over the communicator's transport
// (cct_bootstrap.host) on every rank, and a communicator over it handed to
// body beside the first (Runtime::use_device).
std::string on_ranks_with_device(
    int n, const TransportEntry& device,
    const std::function<void(Communicator&, std::shared_ptr<const Communicator>)>& body);

// As on_ranks, on a communicator whose transport is `device` (opened over
// shm): where the algorithms on device memory bind.
std::string on_device_ranks(int n, const TransportEntry& device,
                            const std::function<void(Communicator&)>& body);

// Memory of a device transport, freed when it goes out of scope.
class DeviceMemory {
 public:
  DeviceMemory(cct_transport_instance* device, std::size_t bytes);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  void* data() const { return ptr_; }
  // Copies, complete on return; throw std::runtime_error with the reason.
  void write(const std::vector<unsigned char>& bytes) const;
  std::vector<unsigned char> read() const;

 private:
  cct_transport_instance* device_;
  std::size_t bytes_;
  void* ptr_ = nullptr;
};

// A backend's buffer of either kind (device or pinned host memory) as bytes,
// copies complete on return.
void write_bytes(device::Backend& backend, const device::Buffer& memory,
                 const std::vector<unsigned char>& bytes);
std::vector<unsigned char> read_bytes(device::Backend& backend, const device::Buffer& memory);

}  // namespace cct::test
