// Device memory, copies and reductions behind one interface.
//
// The CUDA transport moves and reduces buffers in accelerator memory; most
// of what it does (chunking, staging through host memory, the order of
// copies and transfers, handle bookkeeping) needs no GPU, and must be
// tested where there is none. So it is written against this interface,
// which two backends implement: CUDA's runtime (cuda_backend.cpp, built
// where CMake finds a toolkit) and host memory posing as a device
// (host_backend.hpp), on every machine.
//
// The model is CUDA's: work is enqueued on a stream and runs in the order
// it was enqueued, asynchronously to the caller; an event recorded on a
// stream completes when everything enqueued on it before completed. A
// caller may read what a copy wrote only once an event recorded after the
// copy is done().
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include "cct/abi/common.h"
#include "cct/abi/transport.h"

namespace cct::device {

// A backend call failed: the message names the call and the backend's
// reason ("cudaMalloc(1048576): out of memory").
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Handles, the backend's own; never null once created.
struct Stream {
  void* handle = nullptr;
};
struct Event {
  void* handle = nullptr;
};

// What another process of the node needs to map an allocation of this one
// (CUDA: a cudaIpcMemHandle_t, 64 opaque bytes).
struct IpcHandle {
  unsigned char bytes[64] = {};
  bool operator==(const IpcHandle&) const = default;
};

class Backend {
 public:
  virtual ~Backend() = default;

  // "cuda", "host": for logs and ccinfo.
  virtual const char* name() const = 0;

  // Device memory, uninitialised. Throws Error.
  virtual void* alloc(std::size_t bytes) = 0;
  virtual void free(void* ptr) noexcept = 0;
  // Host memory the device copies to and from asynchronously (page-locked
  // under CUDA: a copy from pageable memory is synchronous). Throws Error.
  virtual void* alloc_pinned(std::size_t bytes) = 0;
  virtual void free_pinned(void* ptr) noexcept = 0;
  // Where ptr points: device memory of this backend (and the allocation
  // holding it, where the backend knows it), or anything else (host
  // memory). Never dereferences ptr; safe from any thread.
  virtual cct_memory_region locate(const void* ptr) = 0;
  cct_memory_kind kind_of(const void* ptr) { return locate(ptr).kind; }

  // Device memory shared with the other processes of the node (CUDA IPC),
  // so that a peer rank copies from it directly instead of through host
  // memory. export_memory: a handle for the allocation starting at `base`
  // (locate()'s base). open_memory: maps a handle that another process
  // exported; the pointer is device memory of this backend until
  // close_memory(ptr). Both throw Error where the memory cannot be shared:
  // memory this backend did not allocate, a handle of this very process
  // (CUDA refuses those: within one process the address itself serves), a
  // freed allocation's handle, two devices without peer access.
  virtual IpcHandle export_memory(const void* base) = 0;
  virtual void* open_memory(const IpcHandle& handle) = 0;
  virtual void close_memory(void* ptr) noexcept = 0;

  virtual Stream create_stream() = 0;
  virtual void destroy_stream(Stream stream) noexcept = 0;
  virtual Event create_event() = 0;
  virtual void destroy_event(Event event) noexcept = 0;

  // Enqueued on `stream`; they return at once. `kind` says which side
  // each pointer is on.
  virtual void copy(void* dst, const void* src, std::size_t bytes, cct_copy_kind kind,
                    Stream stream) = 0;
  // inout[i] = op(inout[i], in[i]) for count elements, both device
  // pointers, by the rules of the host's reductions (integers wrap).
  virtual void reduce(void* inout, const void* in, std::size_t count, cct_datatype dtype, cct_op op,
                      Stream stream) = 0;

  // Marks everything enqueued on `stream` so far; `event` may be recorded
  // again once done (or never waited for).
  virtual void record(Event event, Stream stream) = 0;
  // Without blocking: has everything before the event's last record
  // completed? An event never recorded is done.
  virtual bool done(Event event) = 0;
  // Blocks until done(event).
  virtual void wait(Event event) = 0;
  // Blocks until everything enqueued on `stream` completed.
  virtual void synchronize(Stream stream) = 0;
};

// Owners of a backend's objects, released when they go out of scope.
class UniqueStream {
 public:
  explicit UniqueStream(Backend& backend) : backend_(backend), stream_(backend.create_stream()) {}
  ~UniqueStream() { backend_.destroy_stream(stream_); }
  UniqueStream(const UniqueStream&) = delete;
  UniqueStream& operator=(const UniqueStream&) = delete;
  Stream get() const { return stream_; }

 private:
  Backend& backend_;
  Stream stream_;
};

class UniqueEvent {
 public:
  explicit UniqueEvent(Backend& backend) : backend_(backend), event_(backend.create_event()) {}
  ~UniqueEvent() { backend_.destroy_event(event_); }
  UniqueEvent(const UniqueEvent&) = delete;
  UniqueEvent& operator=(const UniqueEvent&) = delete;
  Event get() const { return event_; }

 private:
  Backend& backend_;
  Event event_;
};

// Memory of one kind: device (alloc) or pinned host (alloc_pinned).
class Buffer {
 public:
  enum class Kind { device, pinned };
  Buffer(Backend& backend, Kind kind, std::size_t bytes)
      : backend_(backend),
        kind_(kind),
        bytes_(bytes),
        ptr_(kind == Kind::device ? backend.alloc(bytes) : backend.alloc_pinned(bytes)) {}
  ~Buffer() {
    if (kind_ == Kind::device)
      backend_.free(ptr_);
    else
      backend_.free_pinned(ptr_);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void* data() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  Backend& backend_;
  Kind kind_;
  std::size_t bytes_;
  void* ptr_;
};

}  // namespace cct::device
