// How two ranks of one node agree, message by message, on how a message in
// device memory moves: the receiver copies it straight out of the sender's
// device memory (CUDA IPC), or it is staged through host memory.
//
// Only the sender knows where its buffer is, so it offers: the handle of
// the allocation holding it (and the address itself, which a receiver in
// the same process uses as it is), or "staged". The receiver answers:
// "copied" once its copy out of the sender's memory completed (the send is
// then complete too), "staged" where it took a staged offer or could not
// map the handle (the sender then stages it), or "mismatch". Neither side needs the host
// transport's point-to-point for this: its messages from one rank to
// another are matched in the order they were posted (shm is a FIFO), and
// an answer travelling against a peer's own messages would have no place
// in that order. So offers and answers sit in a region of the host
// transport's shared memory: each rank owns, per peer, one offer to it and
// one answer to it, with sequence numbers that count the pair's messages.
// A sender offers its next message only once the last one was answered,
// so one slot per direction is enough.
#pragma once

#include <cstdint>
#include <optional>

#include "cct/abi/transport.h"
#include "cct/device/backend.hpp"

namespace cct::device {

struct Offer {
  enum class Way : uint32_t { staged = 1, ipc = 2 };
  Way way = Way::staged;
  uint32_t tag = 0;      // the message's, which the receive must match
  uint64_t bytes = 0;    // likewise
  int32_t pid = 0;       // the sender's process
  uint64_t address = 0;  // the message in the sender's address space
  uint64_t offset = 0;   // of the message in its allocation
  IpcHandle handle;      // of the allocation (Way::ipc)
};

// mismatch: the receive was posted for another size or tag (an error on
// both sides, as cct_p2p_ops makes it).
enum class Answer : uint64_t { copied = 1, staged = 2, mismatch = 3 };

class PeerMailbox {
 public:
  // Collective over host's ranks, which must share a node (host->shm set):
  // the region is made by the host transport's shm table.
  explicit PeerMailbox(cct_transport_instance* host);
  ~PeerMailbox();  // local
  PeerMailbox(const PeerMailbox&) = delete;
  PeerMailbox& operator=(const PeerMailbox&) = delete;

  // Message `seq` (1, 2, ... per peer and direction) to/from `peer`.
  void offer(int peer, uint64_t seq, const Offer& offer);
  // Without waiting: the peer's offer `seq` to this rank, once posted.
  std::optional<Offer> offer_from(int peer, uint64_t seq) const;
  void answer(int peer, uint64_t seq, Answer answer);
  std::optional<Answer> answer_from(int peer, uint64_t seq) const;

 private:
  struct Slot;
  Slot& mine(int peer) const;    // what this rank writes for peer
  Slot& theirs(int peer) const;  // what peer writes for this rank

  cct_transport_instance* host_;
  cct_shm_region region_{};
};

}  // namespace cct::device
