// The MPI interposer: an MPI attribute keyval made once, on first use,
// whichever thread asks first (the communicators' runtimes and the
// datatypes' descriptions each keep one).
#pragma once

#include <mpi.h>

#include <atomic>
#include <mutex>

namespace cct::interposer {

// keyval's value, made by create(int*) under mutex if it is still
// MPI_KEYVAL_INVALID; after the first call, one load.
template <class Create>
int keyval_once(std::atomic<int>& keyval, std::mutex& mutex, Create&& create) {
  if (const int k = keyval.load(std::memory_order_acquire); k != MPI_KEYVAL_INVALID) return k;
  const std::lock_guard<std::mutex> lock(mutex);
  int k = keyval.load(std::memory_order_relaxed);
  if (k == MPI_KEYVAL_INVALID) {
    create(&k);
    keyval.store(k, std::memory_order_release);
  }
  return k;
}

}  // namespace cct::interposer
