#include "cct/device/lazy_backend.hpp"

namespace cct::device {

LazyBackend::LazyBackend(std::function<std::unique_ptr<Backend>()> open,
                         std::function<bool()> in_use)
    : open_(std::move(open)), in_use_(std::move(in_use)) {}

Backend& LazyBackend::real() {
  if (!opened()) {
    const std::lock_guard<std::mutex> lock(opening_);
    if (!real_) real_ = open_();
    opened_.store(true, std::memory_order_release);
  }
  return *real_;
}

// What was never opened holds nothing to release.
void LazyBackend::free(void* ptr) noexcept {
  if (opened()) real_->free(ptr);
}

void LazyBackend::free_pinned(void* ptr) noexcept {
  if (opened()) real_->free_pinned(ptr);
}

void LazyBackend::close_memory(void* ptr) noexcept {
  if (opened()) real_->close_memory(ptr);
}

void LazyBackend::destroy_stream(Stream stream) noexcept {
  if (opened()) real_->destroy_stream(stream);
}

void LazyBackend::destroy_event(Event event) noexcept {
  if (opened()) real_->destroy_event(event);
}

cct_memory_region LazyBackend::locate(const void* ptr) {
  if (!opened() && !in_use_()) return {CCT_MEMORY_HOST, nullptr, 0};
  return real().locate(ptr);
}

}  // namespace cct::device
