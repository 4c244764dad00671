// ccautotune C++ SDK: device memory as an algorithm uses it, through its
// transport's device table (cct_device_ops, CCT_CAP_DEVICE).
//
// Copies and reductions are enqueued in order on the transport's stream
// and complete once synchronize() returns; p2p reads device memory as it is
// when the message moves, so an algorithm synchronizes before it sends
// what it just computed. Failures throw TransportError with the transport's
// reason.
#pragma once

#include <cstddef>
#include <string>

#include "cct/sdk/comm.hpp"

namespace cct::sdk {

class Device {
 public:
  explicit Device(const Comm& comm) : tr_(comm.transport()) {
    if (tr_->device == nullptr) throw Unsupported("transport has no device memory");
  }

  void copy(void* dst, const void* src, std::size_t bytes, cct_copy_kind kind) const {
    if (bytes == 0 || dst == src) return;
    cct_error err{};
    check(tr_->device->copy(tr_, dst, src, bytes, kind, &err), "device copy", err);
  }
  // inout[i] = inout[i] (op) in[i], both device memory.
  void reduce(void* inout, const void* in, std::size_t count, cct_datatype dtype, cct_op op) const {
    if (count == 0) return;
    cct_error err{};
    check(tr_->device->reduce_local(tr_, inout, in, count, dtype, op, &err), "device reduce", err);
  }
  void synchronize() const {
    cct_error err{};
    check(tr_->device->synchronize(tr_, &err), "device synchronize", err);
  }
  // The staging chunk of the messages posted from now on (0: the
  // transport's own); equal on every rank (an algorithm's parameter). A
  // transport whose table predates the entry keeps its own.
  void set_chunk(std::size_t chunk_bytes) const {
    if (tr_->device->struct_size < offsetof(cct_device_ops, set_chunk) + sizeof(void*)) return;
    cct_error err{};
    check(tr_->device->set_chunk(tr_, chunk_bytes, &err), "device set_chunk", err);
  }
  cct_transport_instance* transport() const { return tr_; }

 private:
  static void check(cct_status s, const char* what, const cct_error& err) {
    if (s != CCT_OK)
      throw TransportError(
          s, std::string(what) + " failed (status " + std::to_string(s) + "): " + err.message);
  }
  cct_transport_instance* tr_;
};

// Device memory owned by a plan: it grows only when a call needs more than
// every call before it, so a steady stream of calls never allocates.
class DeviceScratch {
 public:
  explicit DeviceScratch(const Device& device) : tr_(device.transport()) {}
  ~DeviceScratch() {
    if (ptr_ != nullptr) tr_->device->free(tr_, ptr_);
  }
  DeviceScratch(const DeviceScratch&) = delete;
  DeviceScratch& operator=(const DeviceScratch&) = delete;

  // At least `bytes` bytes of device memory; the contents are unspecified.
  std::byte* get(std::size_t bytes) {
    if (bytes > size_) {
      if (ptr_ != nullptr) tr_->device->free(tr_, ptr_);
      ptr_ = nullptr;
      size_ = 0;
      cct_error err{};
      if (tr_->device->alloc(tr_, bytes, &ptr_, &err) != CCT_OK)
        throw TransportError(
            CCT_ERR_NO_MEMORY,
            std::string("device alloc of ") + std::to_string(bytes) + " bytes: " + err.message);
      size_ = bytes;
    }
    return static_cast<std::byte*>(ptr_);
  }

 private:
  cct_transport_instance* tr_;
  void* ptr_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace cct::sdk
