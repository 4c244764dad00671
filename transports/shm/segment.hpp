// POSIX shared-memory segments: create or open by name, map, unlink.
#pragma once

#include <cstddef>
#include <string>

namespace cct::shm {

// A mapping of a whole POSIX shm object; unmapped on destruction. Throws
// sdk::TransportError naming the segment and the failing call.
class Mapping {
 public:
  Mapping() = default;
  // Creates `name` (exclusively) with `bytes` zero bytes and maps it.
  static Mapping create(const std::string& name, std::size_t bytes);
  // Maps the existing `name`, which must hold at least `bytes`.
  static Mapping open(const std::string& name, std::size_t bytes);

  ~Mapping();
  Mapping(Mapping&& other) noexcept;
  Mapping& operator=(Mapping&& other) noexcept;
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;

  char* data() const { return static_cast<char*>(addr_); }
  std::size_t size() const { return bytes_; }

 private:
  Mapping(void* addr, std::size_t bytes) : addr_(addr), bytes_(bytes) {}
  void* addr_ = nullptr;
  std::size_t bytes_ = 0;
};

// Removes `name` while it is armed (a name this rank created), so a failure
// between creating and unlinking leaks nothing.
class Unlinker {
 public:
  Unlinker() = default;
  ~Unlinker() { unlink(); }
  Unlinker(const Unlinker&) = delete;
  Unlinker& operator=(const Unlinker&) = delete;

  void arm(std::string name) { name_ = std::move(name); }
  void unlink();

 private:
  std::string name_;
};

}  // namespace cct::shm
