// Host memory posing as a device: the Backend the CUDA transport's logic
// is tested on where there is no GPU (CI, most machines).
//
// It is faithful where the logic could otherwise pass by luck:
//   - device memory cannot be touched by the host: the pointers alloc()
//     returns are the memory's host address moved out of the canonical
//     x86-64 address range, so a load or store through one faults, as a
//     host load from a cudaMalloc pointer does; only copy() and reduce()
//     reach the memory behind them;
//   - device memory is the process's, as CUDA's is: every backend of the
//     process knows (locate) and reaches (copy, reduce) what any of them
//     allocated, so that a program's buffers and a transport's backend
//     meet as on a GPU;
//   - device memory is shared with other processes as CUDA IPC shares it:
//     each allocation is a memory file, which another process maps through
//     /proc/<pid>/fd (a handle names the process, the descriptor and the
//     file's name); a handle of the process itself, or of a freed
//     allocation, is refused, as CUDA refuses them;
//   - enqueued work does not run when it is enqueued. It runs when the
//     caller asks about it: each done() call on an event of a stream runs
//     one pending operation of that stream, and wait() and synchronize()
//     run all that the event or stream covers. A caller that reads what a
//     copy wrote before an event said it was done reads the old bytes in
//     every run, not on an unlucky one.
// One thread at a time per backend, as a transport instance; locate()
// from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "cct/device/backend.hpp"

namespace cct::device {

class HostBackend : public Backend {
 public:
  HostBackend() = default;
  ~HostBackend() override;

  const char* name() const override { return "host"; }
  void* alloc(std::size_t bytes) override;
  void free(void* ptr) noexcept override;
  void* alloc_pinned(std::size_t bytes) override;
  void free_pinned(void* ptr) noexcept override;
  cct_memory_region locate(const void* ptr) override;
  IpcHandle export_memory(const void* base) override;
  void* open_memory(const IpcHandle& handle) override;
  void close_memory(void* ptr) noexcept override;

  Stream create_stream() override;
  void destroy_stream(Stream stream) noexcept override;
  Event create_event() override;
  void destroy_event(Event event) noexcept override;

  void copy(void* dst, const void* src, std::size_t bytes, cct_copy_kind kind,
            Stream stream) override;
  void reduce(void* inout, const void* in, std::size_t count, cct_datatype dtype, cct_op op,
              Stream stream) override;

  void record(Event event, Stream stream) override;
  bool done(Event event) override;
  void wait(Event event) override;
  void synchronize(Stream stream) override;

  // The most operations one stream held not yet run at once, over the
  // backend's life: above 1 when work was enqueued ahead of what
  // completed, the overlap a pipeline is built for.
  std::size_t max_pending() const { return max_pending_; }

 private:
  struct StreamState {
    std::deque<std::function<void()>> pending;
    uint64_t enqueued = 0;
    uint64_t completed = 0;
    void run_one();
  };
  struct EventState {
    StreamState* stream = nullptr;  // null: never recorded
    uint64_t target = 0;            // stream->completed at which it is done
  };

  // The host address behind [ptr, ptr + bytes) of device memory; throws
  // Error naming `what` when that is not inside one allocation.
  static unsigned char* host_of(const void* ptr, std::size_t bytes, const char* what);
  void enqueue(Stream stream, std::function<void()> op);
  // Runs everything enqueued on every stream (as cudaFree synchronizes).
  void run_all();

  std::vector<std::unique_ptr<StreamState>> streams_;
  std::vector<std::unique_ptr<EventState>> events_;
  std::size_t max_pending_ = 0;
};

}  // namespace cct::device
