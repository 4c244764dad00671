// The C face of a device transport: operation tables, probe, open and
// close, and the trampolines that keep every exception on this side of the
// ABI.
#include "device_transport.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>

#include "cct/sdk/algorithm.hpp"
#include "instance.hpp"

namespace cct::cuda {
namespace {

// A p2p call's failure reason goes to the instance's last_error.
template <class F>
cct_status p2p_call(cct_transport_instance* self, F&& f) noexcept {
  cct_status result = CCT_OK;
  const cct_status thrown = sdk::guarded(&self->last_error, [&] {
    result = f(Instance::of(self).p2p());
    if (result != CCT_OK)
      std::snprintf(self->last_error.message, sizeof self->last_error.message, "%s",
                    Instance::of(self).p2p().error().c_str());
  });
  return thrown != CCT_OK ? thrown : result;
}

cct_status p2p_isend(cct_transport_instance* self, const void* buf, size_t bytes, int32_t peer,
                     uint32_t tag, cct_request* req) {
  return p2p_call(self,
                  [&](device::DeviceP2p& p2p) { return p2p.isend(buf, bytes, peer, tag, req); });
}

cct_status p2p_irecv(cct_transport_instance* self, void* buf, size_t bytes, int32_t peer,
                     uint32_t tag, cct_request* req) {
  return p2p_call(self,
                  [&](device::DeviceP2p& p2p) { return p2p.irecv(buf, bytes, peer, tag, req); });
}

cct_status p2p_test(cct_transport_instance* self, cct_request* req, int* done) {
  return p2p_call(self, [&](device::DeviceP2p& p2p) { return p2p.test(req, done); });
}

cct_status p2p_waitall(cct_transport_instance* self, cct_request* reqs, size_t count) {
  return p2p_call(self, [&](device::DeviceP2p& p2p) { return p2p.waitall(reqs, count); });
}

// A device backend's failure (device::Error) is the transport's.
template <class F>
cct_status device_call(cct_error* err, F&& f) noexcept {
  return sdk::guarded(err, [&] {
    try {
      f();
    } catch (const device::Error& e) {
      throw sdk::TransportError(CCT_ERR_TRANSPORT, e.what());
    }
  });
}

cct_status device_alloc(cct_transport_instance* self, size_t bytes, void** ptr, cct_error* err) {
  return device_call(err, [&] {
    if (ptr == nullptr) throw std::invalid_argument("cuda alloc: nowhere to put the pointer");
    *ptr = Instance::of(self).backend().alloc(bytes);
  });
}

void device_free(cct_transport_instance* self, void* ptr) {
  Instance::of(self).backend().free(ptr);
}

cct_status device_copy(cct_transport_instance* self, void* dst, const void* src, size_t bytes,
                       cct_copy_kind kind, cct_error* err) {
  return device_call(err, [&] {
    Instance& instance = Instance::of(self);
    instance.backend().copy(dst, src, bytes, kind, instance.stream());
  });
}

cct_status device_reduce_local(cct_transport_instance* self, void* dst, const void* src,
                               size_t count, cct_datatype dtype, cct_op op, cct_error* err) {
  return device_call(err, [&] {
    if (dtype < 0 || dtype >= CCT_DATATYPE_COUNT || op < 0 || op >= CCT_OP_COUNT)
      throw std::invalid_argument("cuda reduce_local: datatype " + std::to_string(dtype) +
                                  " or operator " + std::to_string(op) + " out of range");
    Instance& instance = Instance::of(self);
    instance.backend().reduce(dst, src, count, dtype, op, instance.stream());
  });
}

cct_status device_synchronize(cct_transport_instance* self, cct_error* err) {
  return device_call(err, [&] {
    Instance& instance = Instance::of(self);
    instance.backend().synchronize(instance.stream());
  });
}

cct_status device_locate(cct_transport_instance* self, const void* ptr, cct_memory_region* region,
                         cct_error* err) {
  return device_call(err, [&] {
    if (region == nullptr) throw std::invalid_argument("cuda locate: nowhere to put the region");
    *region = Instance::of(self).backend().locate(ptr);
  });
}

cct_status device_set_chunk(cct_transport_instance* self, size_t chunk_bytes, cct_error* err) {
  return device_call(err, [&] { Instance::of(self).set_chunk(chunk_bytes); });
}

}  // namespace

const cct_p2p_ops kP2pOps = {sizeof(cct_p2p_ops), CCT_ABI_VERSION, p2p_isend,
                             p2p_irecv,           p2p_test,        p2p_waitall};
const cct_device_ops kDeviceOps = {
    sizeof(cct_device_ops), CCT_ABI_VERSION,    device_alloc,  device_free,     device_copy,
    device_reduce_local,    device_synchronize, device_locate, device_set_chunk};

cct_status probe(const DeviceFlavor& flavor, const cct_bootstrap* boot, cct_error* err) {
  return sdk::guarded(err, [&] {
    if (boot == nullptr) throw std::invalid_argument("no bootstrap");
    if (const std::string why = refusal(flavor, *boot, false); !why.empty())
      throw sdk::Unsupported(why);
  });
}

cct_status open(const DeviceFlavor& flavor, const cct_bootstrap* boot, cct_transport_instance** out,
                cct_error* err) {
  return sdk::guarded(err, [&] {
    if (boot == nullptr || out == nullptr)
      throw std::invalid_argument("open: no bootstrap or nowhere to put the instance");
    if (const std::string why = refusal(flavor, *boot, true); !why.empty())
      throw sdk::Unsupported(why);
    *out = (new Instance(flavor, *boot))->c_instance();
  });
}

// Local: what is still in flight belongs to requests the caller abandoned.
void close(cct_transport_instance* self) {
  if (self != nullptr) delete &Instance::of(self);
}

}  // namespace cct::cuda
