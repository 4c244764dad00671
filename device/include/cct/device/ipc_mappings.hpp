// The device memory of other processes that this one mapped (CUDA IPC),
// for the receiver of a message offered by IPC (peer_mailbox.hpp).
//
// Mapping a handle costs far more than a copy of a small message
// (cudaIpcOpenMemHandle sets up the peer's memory in this process's
// address space), and a program sends from the same few buffers call after
// call; so a mapping is kept, per peer, for the next message from the same
// allocation. A freed allocation's next handle differs (CUDA's and the
// host backend's both), so a kept mapping is never reused for another
// allocation. The peer's memory stays allocated while it is mapped here,
// so at most kKept mappings are kept per peer; the oldest is closed first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "cct/device/backend.hpp"
#include "cct/device/peer_mailbox.hpp"

namespace cct::device {

class IpcMappings {
 public:
  static constexpr std::size_t kKept = 32;

  IpcMappings(Backend& backend, int peers);
  ~IpcMappings();  // closes every mapping: nothing may still copy from them
  IpcMappings(const IpcMappings&) = delete;
  IpcMappings& operator=(const IpcMappings&) = delete;

  // Where the message `offer` (Offer::Way::ipc) from `peer` is in this
  // process: its address, where the sender is this process; else inside
  // the mapping of its allocation, opened now unless kept. Throws Error
  // where the handle cannot be mapped here.
  const void* source(int peer, const Offer& offer);

 private:
  struct Mapping {
    IpcHandle handle;
    void* base;
  };

  Backend& backend_;
  int32_t pid_;
  std::vector<std::deque<Mapping>> kept_;  // per peer, most recently used last
};

}  // namespace cct::device
