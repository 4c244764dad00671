// A temporary buffer owned by a plan: it grows only when a call needs more
// than every call before it, so a steady stream of calls never allocates.
#pragma once

#include <cstddef>
#include <memory>

namespace cct::plugins {

class Scratch {
 public:
  // At least `bytes` bytes; the contents are unspecified.
  std::byte* get(std::size_t bytes) {
    if (bytes > size_) {
      buf_ = std::make_unique_for_overwrite<std::byte[]>(bytes);
      size_ = bytes;
    }
    return buf_.get();
  }

 private:
  std::unique_ptr<std::byte[]> buf_;
  std::size_t size_ = 0;
};

}  // namespace cct::plugins
