// The shared memory of the sliced reductions (sliced_reduce.hpp): each
// rank's part of one shared region holds three flags and kSlots slots, and
// every slot has room for one chunk of the rank's input and the rank's
// slice of that chunk's result:
//
//   part: | inputs | results | done | slot 0: input chunk | result slice | slot 1 | ...
//
// inputs = chunks whose input the rank has put in its slots, results =
// chunks whose result slice it has put in, done = chunks it has finished
// with (it has read every peer's slices it needed). Chunks are numbered over
// the life of the plan, alike on every rank since every rank runs the same
// calls, so the flags only ever grow and never need resetting.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "common/chunks.hpp"

namespace cct::plugins::sliced_reduce {

inline constexpr uint64_t kSlots = 4;

// How a chunk of `length` bytes splits among `ranks` ranks: equal slices
// rounded up to a cache line (so that slices start on lines of their own and
// on element boundaries of every type); the last ranks' slices may be short
// or empty.
class Slicing {
 public:
  Slicing(std::size_t length, int ranks)
      : length_(length),
        slice_((length + static_cast<std::size_t>(ranks) - 1) / static_cast<std::size_t>(ranks)) {
    slice_ = (slice_ + kLine - 1) / kLine * kLine;
  }
  std::size_t offset(int rank) const {
    return std::min(length_, static_cast<std::size_t>(rank) * slice_);
  }
  std::size_t length(int rank) const { return std::min(slice_, length_ - offset(rank)); }
  std::size_t slice() const { return slice_; }

 private:
  std::size_t length_;
  std::size_t slice_;
};

// One rank's part of the region, for chunks of `chunk` bytes among `ranks`.
class Part {
 public:
  Part(void* base, std::size_t chunk, int ranks)
      : base_(static_cast<std::byte*>(base)),
        chunk_(chunk),
        slot_bytes_(chunk + Slicing(chunk, ranks).slice()) {}

  static std::size_t bytes(std::size_t chunk, int ranks) {
    return kFlags * kLine + kSlots * (chunk + Slicing(chunk, ranks).slice());
  }

  uint64_t* inputs() const { return flag(0); }
  uint64_t* results() const { return flag(1); }
  uint64_t* done() const { return flag(2); }
  std::byte* input(uint64_t n) const { return slot(n); }
  std::byte* result(uint64_t n) const { return slot(n) + chunk_; }

 private:
  static constexpr std::size_t kFlags = 3;
  uint64_t* flag(std::size_t i) const { return reinterpret_cast<uint64_t*>(base_ + i * kLine); }
  std::byte* slot(uint64_t n) const { return base_ + kFlags * kLine + (n % kSlots) * slot_bytes_; }

  std::byte* base_;
  std::size_t chunk_;
  std::size_t slot_bytes_;
};

}  // namespace cct::plugins::sliced_reduce
