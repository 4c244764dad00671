// The MPI interposer: counters that every thread increments on its own.
//
// Under MPI_THREAD_MULTIPLE several threads make calls at once, and a call
// kept on the library must cost next to nothing, so its count can be
// neither locked nor an atomic read-modify-write (a lock-prefixed
// instruction costs as much as the rest of that call). Each thread counts
// in a block of its own instead, made on its first count and kept after the
// thread ends; the blocks are summed when printed, at MPI_Finalize, when
// the program's threads are done with MPI.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

namespace cct::interposer {

// T: the counters (default-constructible); one set of blocks per type.
template <class T>
class PerThread {
 public:
  // This thread's block.
  static T& mine() {
    // initial-exec: as Reentry's (reentry.hpp), no __tls_get_addr per call.
    [[gnu::tls_model("initial-exec")]] static thread_local T* block = nullptr;
    if (block == nullptr) block = add();
    return *block;
  }

  // Calls f with every block, of threads living or ended.
  template <class F>
  static void for_each(F&& f) {
    const std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& b : blocks_) f(static_cast<const T&>(*b));
  }

 private:
  static T* add() {
    const std::lock_guard<std::mutex> lock(mutex_);
    blocks_.push_back(std::make_unique<T>());
    return blocks_.back().get();
  }

  static inline std::mutex mutex_;
  static inline std::vector<std::unique_ptr<T>> blocks_;
};

}  // namespace cct::interposer
