// A backend opened on first use.
//
// Every communicator of a program under the runtime opens the device
// transport where the machine has a GPU (Session::open_device), and
// opening CUDA's backend initialises CUDA in the process: a context on the
// GPU, hundreds of MB of its memory, a fraction of a second. A program
// whose buffers are all in host memory, and the ranks of a program that
// keep theirs there, must not pay for that. So the transport's backend is
// this one: it opens the real backend when something first needs it (an
// allocation, a copy, a stream), and until then answers locate() without
// it where the process cannot hold device memory yet (`in_use`: for CUDA,
// its driver library is not loaded in the process, so nothing in it
// allocated device memory).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>

#include "cct/device/backend.hpp"

namespace cct::device {

class LazyBackend final : public Backend {
 public:
  // open: makes the real backend (throws Error); in_use: whether the
  // process may hold device memory, asked while it is not open.
  LazyBackend(std::function<std::unique_ptr<Backend>()> open, std::function<bool()> in_use);

  // Whether the real backend was opened.
  bool opened() const { return opened_.load(std::memory_order_acquire); }

  // The real backend's name, or "not opened".
  const char* name() const override { return opened() ? real_->name() : "not opened"; }
  void* alloc(std::size_t bytes) override { return real().alloc(bytes); }
  void free(void* ptr) noexcept override;
  void* alloc_pinned(std::size_t bytes) override { return real().alloc_pinned(bytes); }
  void free_pinned(void* ptr) noexcept override;
  cct_memory_region locate(const void* ptr) override;
  IpcHandle export_memory(const void* base) override { return real().export_memory(base); }
  void* open_memory(const IpcHandle& handle) override { return real().open_memory(handle); }
  void close_memory(void* ptr) noexcept override;

  Stream create_stream() override { return real().create_stream(); }
  void destroy_stream(Stream stream) noexcept override;
  Event create_event() override { return real().create_event(); }
  void destroy_event(Event event) noexcept override;

  void copy(void* dst, const void* src, std::size_t bytes, cct_copy_kind kind,
            Stream stream) override {
    real().copy(dst, src, bytes, kind, stream);
  }
  void reduce(void* inout, const void* in, std::size_t count, cct_datatype dtype, cct_op op,
              Stream stream) override {
    real().reduce(inout, in, count, dtype, op, stream);
  }
  void record(Event event, Stream stream) override { real().record(event, stream); }
  bool done(Event event) override { return real().done(event); }
  void wait(Event event) override { real().wait(event); }
  void synchronize(Stream stream) override { real().synchronize(stream); }

 private:
  // The real backend, opened on the first call (throws Error where that
  // fails, and tries again on the next call).
  Backend& real();

  std::function<std::unique_ptr<Backend>()> open_;
  std::function<bool()> in_use_;
  std::mutex opening_;
  std::atomic<bool> opened_{false};
  std::unique_ptr<Backend> real_;
};

}  // namespace cct::device
