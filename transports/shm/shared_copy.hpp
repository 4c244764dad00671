// A large single-copy message moved by both of its ranks.
//
// With CMA the receiver alone copies a large message out of the sender's
// memory while the sender, blocked in waitall until that copy ends, spins.
// Two cores can copy twice as fast as one: so the receiver publishes its
// buffer's address in the slot and both sides claim pieces of the message
// from a shared counter, the receiver reading them (process_vm_readv), the
// sender writing them (process_vm_writev). A side that is busy elsewhere
// simply claims nothing, and the other copies every piece: claiming never
// waits, so nothing can deadlock. The receiver frees the slot once every
// piece is copied; the sender only touches the slot while it is not freed
// (it alone ever reuses it).
#pragma once

#include <cstddef>
#include <cstdint>

#include "layout.hpp"

namespace cct::shm {

// Pieces are large enough that a system call's fixed cost (pinning pages)
// stays small, and small enough that the two sides share a 1 MiB message
// in 8 claims.
constexpr std::size_t kSharedCopyPiece = 128 << 10;

// Messages of two pieces or more are shared.
inline bool shared_copy_applies(std::size_t bytes) {
  return bytes >= 2 * kSharedCopyPiece;
}

inline uint64_t shared_copy_pieces(std::size_t bytes) {
  return (bytes + kSharedCopyPiece - 1) / kSharedCopyPiece;
}

// Claims pieces of the slot's message until none is left, calling
// copy(offset, length) for each (it returns 0 or an errno); returns the
// first error. Every claimed piece counts as done, copied or not, so the
// receiver never waits for a piece forever.
template <class Copy>
int copy_claimed_pieces(SlotHeader* slot, std::size_t bytes, Copy&& copy) {
  const uint64_t pieces = shared_copy_pieces(bytes);
  int error = 0;
  for (;;) {
    const uint64_t piece = fetch_add(&slot->pieces_claimed, 1);
    if (piece >= pieces) return error;
    const std::size_t offset = piece * kSharedCopyPiece;
    const int failed = copy(offset, std::min(kSharedCopyPiece, bytes - offset));
    if (error == 0) error = failed;
    fetch_add(&slot->pieces_done, 1);
  }
}

}  // namespace cct::shm
