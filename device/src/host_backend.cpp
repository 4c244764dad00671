#include "cct/device/host_backend.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
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
// allocated or opened it (which releases what is left of it when it goes).
// Each allocation is a memory file of its own (memfd), mapped shared, so
// that another process can map it as CUDA IPC does: through the file,
// /proc/<pid>/fd/<fd>. An opened mapping has no file of its own (fd -1).
struct Allocation {
  std::size_t bytes;
  const HostBackend* owner;
  int fd;
  uint64_t serial;  // the file's name, so that a handle to a freed one is refused
};
std::mutex allocations_mutex;
std::map<uintptr_t, Allocation>& allocations() {
  static std::map<uintptr_t, Allocation> all;
  return all;
}

std::size_t mapped_bytes(std::size_t bytes) {
  return std::max<std::size_t>(bytes, 1);
}

std::string file_name(uint64_t serial) {
  return "cct-host-device-" + std::to_string(serial);
}

std::string system_error(const std::string& call) {
  return "host backend: " + call + ": " + std::strerror(errno);
}

// Maps `bytes` of fd shared and registers the mapping as device memory.
// Caller holds allocations_mutex.
void* map_device(int fd, std::size_t bytes, const Allocation& allocation) {
  void* host = mmap(nullptr, mapped_bytes(bytes), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (host == MAP_FAILED) throw Error(system_error("mmap(" + std::to_string(bytes) + ")"));
  const uintptr_t address = reinterpret_cast<uintptr_t>(host) + kDeviceOffset;
  allocations()[address] = allocation;
  return reinterpret_cast<void*>(address);
}

void unmap_device(uintptr_t address, const Allocation& allocation) {
  munmap(reinterpret_cast<void*>(address - kDeviceOffset), mapped_bytes(allocation.bytes));
  if (allocation.fd >= 0) ::close(allocation.fd);
}

// What an exported handle holds: the file, by its owner's descriptor, and
// its name.
struct SharedFile {
  char magic[8];
  int32_t pid;
  int32_t fd;
  uint64_t serial;
  uint64_t bytes;
};
static_assert(sizeof(SharedFile) <= sizeof(IpcHandle::bytes));
constexpr char kMagic[8] = {'c', 'c', 't', '-', 'h', 'o', 's', 't'};

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
    unmap_device(entry.first, entry.second);
    return true;
  });
}

void* HostBackend::alloc(std::size_t bytes) {
  static std::atomic<uint64_t> serials{0};
  const uint64_t serial = ++serials;
  const int fd = memfd_create(file_name(serial).c_str(), MFD_CLOEXEC);
  if (fd < 0) throw Error(system_error("memfd_create"));
  try {
    if (ftruncate(fd, static_cast<off_t>(mapped_bytes(bytes))) != 0)
      throw Error(system_error("ftruncate(" + std::to_string(bytes) + ")"));
    const std::lock_guard<std::mutex> lock(allocations_mutex);
    return map_device(fd, bytes, {bytes, this, fd, serial});
  } catch (...) {
    ::close(fd);
    throw;
  }
}

void HostBackend::free(void* ptr) noexcept {
  run_all();
  const std::lock_guard<std::mutex> lock(allocations_mutex);
  const auto it = allocations().find(reinterpret_cast<uintptr_t>(ptr));
  if (it == allocations().end() || it->second.fd < 0) return;
  unmap_device(it->first, it->second);
  allocations().erase(it);
}

IpcHandle HostBackend::export_memory(const void* base) {
  const std::lock_guard<std::mutex> lock(allocations_mutex);
  const auto it = allocations().find(reinterpret_cast<uintptr_t>(base));
  if (it == allocations().end() || it->second.fd < 0)
    throw Error("host backend: export_memory(" + pointer_text(base) +
                "): not the start of an allocation of this process");
  SharedFile file{
      {}, static_cast<int32_t>(getpid()), it->second.fd, it->second.serial, it->second.bytes};
  std::memcpy(file.magic, kMagic, sizeof kMagic);
  IpcHandle handle;
  std::memcpy(handle.bytes, &file, sizeof file);
  return handle;
}

// The file through its owner's descriptor, checked by name: a descriptor
// number is reused once the allocation behind it is freed.
void* HostBackend::open_memory(const IpcHandle& handle) {
  SharedFile file;
  std::memcpy(&file, handle.bytes, sizeof file);
  if (std::memcmp(file.magic, kMagic, sizeof kMagic) != 0)
    throw Error("host backend: open_memory: not a handle of the host backend");
  if (file.pid == getpid())
    throw Error(
        "host backend: open_memory: a handle of this process (as CUDA, it opens only "
        "another process's)");
  const std::string path = "/proc/" + std::to_string(file.pid) + "/fd/" + std::to_string(file.fd);
  char target[256];
  const ssize_t length = readlink(path.c_str(), target, sizeof target);
  if (length < 0 ||
      std::string(target, static_cast<std::size_t>(length)).find(file_name(file.serial) + " ") ==
          std::string::npos)
    throw Error("host backend: open_memory: allocation " + std::to_string(file.serial) +
                " of process " + std::to_string(file.pid) + " is gone");
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) throw Error(system_error("open(" + path + ")"));
  const std::lock_guard<std::mutex> lock(allocations_mutex);
  try {
    void* ptr = map_device(fd, file.bytes, {file.bytes, this, -1, file.serial});
    ::close(fd);
    return ptr;
  } catch (...) {
    ::close(fd);
    throw;
  }
}

void HostBackend::close_memory(void* ptr) noexcept {
  run_all();
  const std::lock_guard<std::mutex> lock(allocations_mutex);
  const auto it = allocations().find(reinterpret_cast<uintptr_t>(ptr));
  if (it == allocations().end() || it->second.fd >= 0 || it->second.owner != this) return;
  unmap_device(it->first, it->second);
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
