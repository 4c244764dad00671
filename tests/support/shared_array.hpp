// An array in memory that the forked ranks of a launch share with the test
// process (an anonymous shared mapping made before the fork): how a test
// sees what every rank did, e.g. counters of barrier rounds or per-rank
// results. Zeroed on creation; T must be trivially copyable.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <stdexcept>
#include <type_traits>

namespace cct::test {

template <class T>
class SharedArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  explicit SharedArray(std::size_t size)
      : size_(size),
        items_(static_cast<T*>(
            mmap(nullptr, bytes(), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0))) {
    if (items_ == MAP_FAILED) throw std::runtime_error("mmap of a shared array failed");
  }
  ~SharedArray() { munmap(items_, bytes()); }
  SharedArray(const SharedArray&) = delete;
  SharedArray& operator=(const SharedArray&) = delete;

  T& operator[](std::size_t i) const { return items_[i]; }
  // Item i as an atomic, for counters that several ranks update.
  std::atomic_ref<T> atomic(std::size_t i) const { return std::atomic_ref<T>(items_[i]); }
  void clear() const { std::fill_n(items_, size_, T{}); }

 private:
  std::size_t bytes() const { return std::max<std::size_t>(1, size_) * sizeof(T); }

  std::size_t size_;
  T* items_;
};

}  // namespace cct::test
