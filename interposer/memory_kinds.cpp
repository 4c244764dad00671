#include "memory_kinds.hpp"

#include <array>
#include <cstdint>
#include <map>

#include "cct/device_memory.hpp"
#include "per_thread.hpp"

namespace cct::interposer {
namespace {

// Per thread, without a lock: the last addresses asked about (a program
// passes the same buffers call after call), and the device allocations
// found, each forgotten when room is needed, never wrong.
constexpr std::size_t kAddresses = 64;
constexpr std::size_t kAllocations = 256;

struct Remembered {
  struct Address {
    const void* ptr = nullptr;
    cct_memory_kind kind = CCT_MEMORY_HOST;
  };
  std::array<Address, kAddresses> addresses;
  std::map<uintptr_t, uintptr_t> allocations;  // device memory: first address -> one past its last
};

// Fibonacci hashing: buffers are aligned, so their low bits say little.
std::size_t slot_of(const void* ptr) {
  return (reinterpret_cast<uintptr_t>(ptr) * UINT64_C(0x9E3779B97F4A7C15)) >> 58;
}
static_assert(kAddresses == 64, "slot_of takes the hash's top 6 bits");

bool in_allocation(const Remembered& r, uintptr_t address) {
  auto it = r.allocations.upper_bound(address);
  return it != r.allocations.begin() && address < (--it)->second;
}

}  // namespace

cct_memory_kind memory_kind(cct_transport_instance* device, const void* ptr) {
  if (ptr == nullptr) return CCT_MEMORY_HOST;
  Remembered& r = PerThread<Remembered>::mine();
  Remembered::Address& known = r.addresses[slot_of(ptr)];
  if (known.ptr == ptr) return known.kind;
  const auto address = reinterpret_cast<uintptr_t>(ptr);
  if (in_allocation(r, address)) {
    known = {ptr, CCT_MEMORY_DEVICE};
    return CCT_MEMORY_DEVICE;
  }
  const cct_memory_region region = locate(device, ptr);
  if (region.kind == CCT_MEMORY_DEVICE && region.bytes > 0) {
    if (r.allocations.size() == kAllocations) r.allocations.clear();
    const auto base = reinterpret_cast<uintptr_t>(region.base);
    r.allocations[base] = base + region.bytes;
  }
  known = {ptr, region.kind};
  return region.kind;
}

}  // namespace cct::interposer
