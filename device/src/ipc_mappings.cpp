#include "cct/device/ipc_mappings.hpp"

#include <unistd.h>

#include <algorithm>

namespace cct::device {

IpcMappings::IpcMappings(Backend& backend, int peers)
    : backend_(backend), pid_(static_cast<int32_t>(getpid())), kept_(peers) {}

IpcMappings::~IpcMappings() {
  for (auto& mappings : kept_)
    for (const Mapping& m : mappings) backend_.close_memory(m.base);
}

const void* IpcMappings::source(int peer, const Offer& offer) {
  if (offer.pid == pid_) return reinterpret_cast<const void*>(offer.address);
  std::deque<Mapping>& kept = kept_.at(peer);
  auto found = std::find_if(kept.begin(), kept.end(),
                            [&](const Mapping& m) { return m.handle == offer.handle; });
  if (found != kept.end()) {
    std::rotate(found, found + 1, kept.end());
  } else {
    void* base = backend_.open_memory(offer.handle);
    if (kept.size() == kKept) {
      backend_.close_memory(kept.front().base);
      kept.pop_front();
    }
    kept.push_back({offer.handle, base});
  }
  return static_cast<const unsigned char*>(kept.back().base) + offer.offset;
}

}  // namespace cct::device
