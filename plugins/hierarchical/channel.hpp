// A pipe through shared memory that lives in one rank's part of a shared
// region: one writer at a time streams chunks through kSlots slots, the
// other participants read each chunk. Chunks are numbered over the life of
// the plan (every participant counts them alike, since every rank runs the
// same calls), so the flags only ever grow and never need resetting.
//
//   part: | published | done[0] | done[1] | ... | done[size-1] | slot 0 | slot 1 | ...
//
// Each word has a cache line of its own. `published` = chunks written so
// far; done[r] = chunks participant r has finished with (read, or written
// when r was the writer). Before reusing a slot the writer waits until every
// other participant is done with the chunk that last used it; a per-rank
// done word (not one shared counter) is what makes that exact when readers
// run at different speeds. With kSlots slots the writer runs up to kSlots
// chunks ahead of the slowest reader: copying in and copying out overlap,
// which pipelines large messages through a small, cache-sized buffer.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "cct/sdk/comm.hpp"
#include "cct/sdk/cost.hpp"
#include "common/chunks.hpp"

namespace cct::plugins::hierarchical {

inline constexpr uint64_t kSlots = 4;

// Bytes of one part holding a channel for `size` ranks with `chunk`-byte slots.
inline std::size_t channel_bytes(int size, std::size_t chunk) {
  return kLine * (1 + static_cast<std::size_t>(size)) + kSlots * chunk;
}

// The cost of streaming `bytes` through a channel to its readers, at span
// `span`: each chunk's handoff is a wait on a flag (a message of 0 bytes),
// and the readers copy every chunk out behind the writer's copy of the
// first one in (the slots overlap the copies of the others).
inline cct_cost stream_cost(int span, std::size_t bytes, std::size_t chunk) {
  return cct::sdk::CostShape()
      .send(span, static_cast<double>(chunks_in(bytes, chunk)), 0)
      .copy(static_cast<double>(bytes + std::min(bytes, chunk)));
}

class Channel {
 public:
  Channel(void* part, int size, std::size_t chunk)
      : base_(static_cast<std::byte*>(part)), size_(size), chunk_(chunk) {}

  // Writer: the slot for chunk `n`, once the participants (but `self`) are
  // done with its previous use.
  std::byte* slot_to_write(const cct::sdk::SharedRegion& region, std::span<const int> participants,
                           int self, uint64_t n) const {
    if (n >= kSlots)
      for (int r : participants)
        if (r != self) region.wait(done(r), n - kSlots + 1, CCT_WAIT_GE);
    return slot(n);
  }
  // Writer: chunk `n` is in its slot.
  void publish(int self, uint64_t n) const {
    cct::sdk::store_release(published(), n + 1);
    cct::sdk::store_release(done(self), n + 1);
  }
  // Reader: chunk `n`, once published.
  const std::byte* slot_to_read(const cct::sdk::SharedRegion& region, uint64_t n) const {
    region.wait(published(), n + 1, CCT_WAIT_GE);
    return slot(n);
  }
  // Reader: done with chunk `n`; the writer may reuse its slot.
  void release(int self, uint64_t n) const { cct::sdk::store_release(done(self), n + 1); }

  // Writer: streams `bytes` as chunks first, first + 1, ...;
  // fill(slot, offset, length) puts the stream's bytes from offset into the
  // chunk's slot.
  template <class Fill>
  void write_with(const cct::sdk::SharedRegion& region, std::span<const int> participants, int self,
                  std::size_t bytes, uint64_t first, Fill fill) const {
    for (uint64_t i = 0; i * chunk_ < bytes; ++i) {
      fill(slot_to_write(region, participants, self, first + i), i * chunk_, length(bytes, i));
      publish(self, first + i);
    }
  }
  // Reader: the other end of write_with; drain(offset, slot, length) takes
  // each chunk out of its slot.
  template <class Drain>
  void read_with(const cct::sdk::SharedRegion& region, int self, std::size_t bytes, uint64_t first,
                 Drain drain) const {
    for (uint64_t i = 0; i * chunk_ < bytes; ++i) {
      drain(i * chunk_, slot_to_read(region, first + i), length(bytes, i));
      release(self, first + i);
    }
  }
  // Writer: streams `bytes` from src as chunks first, first + 1, ...
  void write_all(const cct::sdk::SharedRegion& region, std::span<const int> participants, int self,
                 const std::byte* src, std::size_t bytes, uint64_t first) const {
    write_with(
        region, participants, self, bytes, first,
        [src](std::byte* slot, std::size_t at, std::size_t n) { std::memcpy(slot, src + at, n); });
  }
  // Reader: the other end of write_all, into dst.
  void read_all(const cct::sdk::SharedRegion& region, int self, std::byte* dst, std::size_t bytes,
                uint64_t first) const {
    read_with(region, self, bytes, first,
              [dst](std::size_t at, const std::byte* slot, std::size_t n) {
                std::memcpy(dst + at, slot, n);
              });
  }
  // Bytes of chunk i of a `bytes`-byte stream.
  std::size_t length(std::size_t bytes, uint64_t i) const {
    return std::min<std::size_t>(chunk_, bytes - i * chunk_);
  }

 private:
  uint64_t* word(std::size_t line) const {
    return reinterpret_cast<uint64_t*>(base_ + kLine * line);
  }
  uint64_t* published() const { return word(0); }
  uint64_t* done(int rank) const { return word(1 + static_cast<std::size_t>(rank)); }
  std::byte* slot(uint64_t n) const {
    return base_ + kLine * (1 + static_cast<std::size_t>(size_)) + (n % kSlots) * chunk_;
  }

  std::byte* base_;
  int size_;
  std::size_t chunk_;
};

}  // namespace cct::plugins::hierarchical
