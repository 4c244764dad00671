#include "cct/device/peer_mailbox.hpp"

#include <string>
#include <type_traits>

#include "cct/sdk/comm.hpp"

namespace cct::device {

// One rank's words for one peer. Each sequence number is stored last,
// with release, and read first, with acquire: what it covers is then
// complete. Offer and answer sit on lines of their own, as their writers
// differ in the pair's exchanges.
struct PeerMailbox::Slot {
  alignas(64) uint64_t offer_seq;
  Offer offer;
  alignas(64) uint64_t answer_seq;
  Answer answer;
};
static_assert(std::is_trivially_copyable_v<Offer>);

PeerMailbox::PeerMailbox(cct_transport_instance* host) : host_(host) {
  if (host->shm == nullptr)
    throw sdk::TransportError(CCT_ERR_UNSUPPORTED, "the host transport has no shared memory");
  cct_error err{};
  if (host->shm->alloc(host, host->size * sizeof(Slot), &region_, &err) != CCT_OK)
    throw sdk::TransportError(CCT_ERR_TRANSPORT, std::string("shm alloc: ") + err.message);
}

PeerMailbox::~PeerMailbox() {
  host_->shm->free(host_, &region_);
}

PeerMailbox::Slot& PeerMailbox::mine(int peer) const {
  return static_cast<Slot*>(region_.peer[host_->rank])[peer];
}

PeerMailbox::Slot& PeerMailbox::theirs(int peer) const {
  return static_cast<Slot*>(region_.peer[peer])[host_->rank];
}

void PeerMailbox::offer(int peer, uint64_t seq, const Offer& offer) {
  Slot& slot = mine(peer);
  slot.offer = offer;
  sdk::store_release(&slot.offer_seq, seq);
}

std::optional<Offer> PeerMailbox::offer_from(int peer, uint64_t seq) const {
  const Slot& slot = theirs(peer);
  if (sdk::load_acquire(&slot.offer_seq) != seq) return std::nullopt;
  return slot.offer;
}

void PeerMailbox::answer(int peer, uint64_t seq, Answer answer) {
  Slot& slot = mine(peer);
  slot.answer = answer;
  sdk::store_release(&slot.answer_seq, seq);
}

std::optional<Answer> PeerMailbox::answer_from(int peer, uint64_t seq) const {
  const Slot& slot = theirs(peer);
  if (sdk::load_acquire(&slot.answer_seq) != seq) return std::nullopt;
  return slot.answer;
}

}  // namespace cct::device
