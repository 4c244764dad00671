#include "cct/device_memory.hpp"

#include <cstddef>
#include <string>

#include "cct/error.hpp"

namespace cct {
namespace {

// cct_copy_kind's names, by value.
constexpr const char* kCopies[] = {"host -> device", "device -> host", "device -> device"};

}  // namespace

std::shared_ptr<std::byte> device_memory(cct_transport_instance* device, std::size_t bytes,
                                         const char* what) {
  void* memory = nullptr;
  cct_error err{};
  if (device->device->alloc(device, bytes, &memory, &err) != CCT_OK)
    throw Error(std::string(what) + ": device memory of " + std::to_string(bytes) +
                    " bytes: " + err.message,
                CCT_ERR_NO_MEMORY);
  return {static_cast<std::byte*>(memory),
          [device](std::byte* p) { device->device->free(device, p); }};
}

void copy_and_wait(cct_transport_instance* device, void* dst, const void* src, std::size_t bytes,
                   cct_copy_kind kind, const char* what) {
  if (bytes == 0) return;
  cct_error err{};
  if (device->device->copy(device, dst, src, bytes, kind, &err) != CCT_OK ||
      device->device->synchronize(device, &err) != CCT_OK)
    throw Error(std::string(what) + ": " + kCopies[kind] + " copy of " + std::to_string(bytes) +
                    " bytes failed: " + err.message,
                CCT_ERR_TRANSPORT);
}

cct_memory_region locate(cct_transport_instance* device, const void* ptr) {
  const cct_device_ops& ops = *device->device;
  if (ops.struct_size < offsetof(cct_device_ops, locate) + sizeof ops.locate ||
      ops.locate == nullptr)
    return {CCT_MEMORY_HOST, nullptr, 0};
  cct_memory_region region{};
  cct_error err{};
  if (ops.locate(device, ptr, &region, &err) != CCT_OK)
    throw Error(std::string("asking the device transport where a buffer is: ") + err.message,
                CCT_ERR_TRANSPORT);
  return region;
}

}  // namespace cct
