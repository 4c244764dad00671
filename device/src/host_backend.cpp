#include "cct/device/host_backend.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "cct/sdk/datatype.hpp"

namespace cct::device {
namespace {

// Added to a host address to make a device address: bit 62 set takes any
// user-space address (below 2^47) out of the canonical range, so that
// dereferencing it faults.
constexpr uintptr_t kDeviceOffset = uintptr_t{1} << 62;

std::string pointer_text(const void* ptr) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", ptr);
  return text;
}

// The process's device memory: address -> its bytes and the backend that
// allocated it (which frees what is left of it when it goes).
struct Allocation {
  std::size_t bytes;
  const HostBackend* owner;
};
std::mutex allocations_mutex;
std::map<uintptr_t, Allocation>& allocations() {
  static std::map<uintptr_t, Allocation> all;
  return all;
}

// The allocation holding address, or end().
std::map<uintptr_t, Allocation>::iterator allocation_at(uintptr_t address) {
  auto& all = allocations();
  auto it = all.upper_bound(address);
  if (it == all.begin()) return all.end();
  --it;
  return address < it->first + std::max<std::size_t>(it->second.bytes, 1) ? it : all.end();
}

template <class T>
T* find_owned(std::vector<std::unique_ptr<T>>& owned, void* handle) {
  for (auto& item : owned)
    if (item.get() == handle) return item.get();
  throw Error("host backend: unknown handle " + pointer_text(handle));
}

template <class T>
void erase_owned(std::vector<std::unique_ptr<T>>& owned, void* handle) {
  owned.erase(std::remove_if(owned.begin(), owned.end(),
                             [&](const std::unique_ptr<T>& item) { return item.get() == handle; }),
              owned.end());
}

}  // namespace

HostBackend::~HostBackend() {
  run_all();
  const std::lock_guard<std::mutex> lock(allocations_mutex);
  std::erase_if(allocations(), [&](const auto& entry) {
    if (entry.second.owner != this) return false;
    std::free(reinterpret_cast<void*>(entry.first - kDeviceOffset));
    return true;
  });
}

void* HostBackend::alloc(std::size_t bytes) {
  void* host = std::malloc(std::max<std::size_t>(bytes, 1));
  if (host == nullptr) throw Error("host backend: alloc(" + std::to_string(bytes) + ") failed");
  const uintptr_t address = reinterpret_cast<uintptr_t>(host) + kDeviceOffset;
  const std::lock_guard<std::mutex> lock(allocations_mutex);
  allocations()[address] = {bytes, this};
  return reinterpret_cast<void*>(address);
}

void HostBackend::free(void* ptr) noexcept {
  run_all();
  const std::lock_guard<std::mutex> lock(allocations_mutex);
  const auto it = allocations().find(reinterpret_cast<uintptr_t>(ptr));
  if (it == allocations().end()) return;
  std::free(reinterpret_cast<void*>(it->first - kDeviceOffset));
  allocations().erase(it);
}

void* HostBackend::alloc_pinned(std::size_t bytes) {
  void* host = std::malloc(std::max<std::size_t>(bytes, 1));
  if (host == nullptr)
    throw Error("host backend: alloc_pinned(" + std::to_string(bytes) + ") failed");
  return host;
}

void HostBackend::free_pinned(void* ptr) noexcept {
  run_all();
  std::free(ptr);
}

cct_memory_region HostBackend::locate(const void* ptr) {
  const std::lock_guard<std::mutex> lock(allocations_mutex);
  const auto it = allocation_at(reinterpret_cast<uintptr_t>(ptr));
  if (it == allocations().end()) return {CCT_MEMORY_HOST, nullptr, 0};
  return {CCT_MEMORY_DEVICE, reinterpret_cast<const void*>(it->first), it->second.bytes};
}

unsigned char* HostBackend::host_of(const void* ptr, std::size_t bytes, const char* what) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(ptr);
  const std::lock_guard<std::mutex> lock(allocations_mutex);
  const auto it = allocation_at(address);
  if (it != allocations().end() && address + bytes <= it->first + it->second.bytes)
    return reinterpret_cast<unsigned char*>(address - kDeviceOffset);
  throw Error(std::string("host backend: ") + what + " " + pointer_text(ptr) + " (" +
              std::to_string(bytes) + " bytes) is not inside device memory");
}

void HostBackend::StreamState::run_one() {
  std::function<void()> op = std::move(pending.front());
  pending.pop_front();
  op();
  ++completed;
}

Stream HostBackend::create_stream() {
  streams_.push_back(std::make_unique<StreamState>());
  return Stream{streams_.back().get()};
}

void HostBackend::destroy_stream(Stream stream) noexcept {
  // As under CUDA, work enqueued before the stream is destroyed still runs.
  auto* state = static_cast<StreamState*>(stream.handle);
  while (!state->pending.empty()) state->run_one();
  for (auto& event : events_)
    if (event->stream == state) event->stream = nullptr;
  erase_owned(streams_, stream.handle);
}

Event HostBackend::create_event() {
  events_.push_back(std::make_unique<EventState>());
  return Event{events_.back().get()};
}

void HostBackend::destroy_event(Event event) noexcept {
  erase_owned(events_, event.handle);
}

void HostBackend::copy(void* dst, const void* src, std::size_t bytes, cct_copy_kind kind,
                       Stream stream) {
  const bool dst_device = kind != CCT_COPY_DEVICE_TO_HOST;
  const bool src_device = kind != CCT_COPY_HOST_TO_DEVICE;
  unsigned char* to =
      dst_device ? host_of(dst, bytes, "copy destination") : static_cast<unsigned char*>(dst);
  const unsigned char* from =
      src_device ? host_of(src, bytes, "copy source") : static_cast<const unsigned char*>(src);
  enqueue(stream, [to, from, bytes] {
    if (bytes > 0) std::memmove(to, from, bytes);
  });
}

void HostBackend::reduce(void* inout, const void* in, std::size_t count, cct_datatype dtype,
                         cct_op op, Stream stream) {
  const std::size_t bytes = count * sdk::dtype_size(dtype);
  unsigned char* target = host_of(inout, bytes, "reduce inout");
  const unsigned char* operand = host_of(in, bytes, "reduce input");
  enqueue(stream, [=] { sdk::reduce_local(target, operand, count, dtype, op); });
}

void HostBackend::enqueue(Stream stream, std::function<void()> op) {
  StreamState* state = find_owned(streams_, stream.handle);
  state->pending.push_back(std::move(op));
  ++state->enqueued;
  max_pending_ = std::max(max_pending_, state->pending.size());
}

void HostBackend::record(Event event, Stream stream) {
  auto* state = find_owned(events_, event.handle);
  state->stream = find_owned(streams_, stream.handle);
  state->target = state->stream->enqueued;
}

bool HostBackend::done(Event event) {
  const auto* state = find_owned(events_, event.handle);
  if (state->stream == nullptr || state->stream->completed >= state->target) return true;
  state->stream->run_one();
  return state->stream->completed >= state->target;
}

void HostBackend::wait(Event event) {
  while (!done(event)) {
  }
}

void HostBackend::synchronize(Stream stream) {
  auto* state = find_owned(streams_, stream.handle);
  while (!state->pending.empty()) state->run_one();
}

void HostBackend::run_all() {
  for (auto& stream : streams_)
    while (!stream->pending.empty()) stream->run_one();
}

}  // namespace cct::device
