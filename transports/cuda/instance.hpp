// One open device transport: the device backend, the stream its device
// operations are enqueued on, and the staged point-to-point over the host
// transport under it.
#pragma once

#include <cstddef>
#include <memory>

#include "cct/abi/transport.h"
#include "cct/device/backend.hpp"
#include "cct/device/device_p2p.hpp"
#include "device_transport.hpp"

namespace cct::cuda {

// The operation tables (device_transport.cpp).
extern const cct_p2p_ops kP2pOps;
extern const cct_device_ops kDeviceOps;

// Why this transport cannot serve boot's ranks, judged locally and without
// initialising the device; "" where it can. Before `opening`, a bootstrap
// without a host transport is judged on the rest.
std::string refusal(const DeviceFlavor& flavor, const cct_bootstrap& boot, bool opening);

class Instance {
 public:
  // Collective over boot's ranks: the ranks agree on the chunk size, on
  // copies by IPC (CCT_CUDA_IPC) and the device (CCT_CUDA_DEVICE); where one rank's are malformed,
  // every rank throws, naming the first that failed and why. The device itself is opened where the
  // transport first needs it (device::LazyBackend), so that a process which never passes device
  // memory never initialises it.
  Instance(const DeviceFlavor& flavor, const cct_bootstrap& boot);
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  static Instance& of(cct_transport_instance* self) { return *static_cast<Instance*>(self->state); }
  cct_transport_instance* c_instance() { return &c_; }
  device::Backend& backend() { return *backend_; }
  // The stream of the device table's work, made on first use.
  device::Stream stream();
  device::DeviceP2p& p2p() { return *p2p_; }
  // cct_device_ops.set_chunk: the algorithm's chunk, unless CCT_CUDA_CHUNK
  // fixed one for every message.
  void set_chunk(std::size_t chunk_bytes);

 private:
  std::unique_ptr<device::Backend> backend_;
  std::unique_ptr<device::UniqueStream> stream_;
  std::unique_ptr<device::DeviceP2p> p2p_;
  bool chunk_fixed_ = false;
  cct_transport_instance c_{};
};

}  // namespace cct::cuda
