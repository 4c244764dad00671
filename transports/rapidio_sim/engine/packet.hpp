// Packets in flight: small POD records in a reused pool, so a hop allocates
// nothing. Payload is a pointer into the sender's buffer or an operation's
// staging copy; bytes are copied only where the data ends up.
#pragma once

#include <cstdint>
#include <vector>

namespace cct::rio {

enum class PacketKind : uint8_t {
  kP2pData,       // to a DSP; answered by a kP2pResponse
  kP2pResponse,   // header only, back to the sender
  kBcast,         // replicated by every switch on the route tree
  kGather,        // absorbed and packed by every switch toward the root
  kReduce,        // combined element-wise by every switch toward the root
  kFetchAdd,      // to the counter switch; answered by kCounterReply
  kWaitGe,        // registration at the counter switch; answered once reached
  kCounterReply,  // old value of a fetch_add, or a wait_ge notification
};

// Responses and control packets overtake data: the seed's handshakes and
// barriers must not wait behind bulk transfers.
inline int packet_priority(PacketKind kind) {
  return kind == PacketKind::kP2pResponse || kind >= PacketKind::kFetchAdd ? 1 : 0;
}

struct Packet {
  const uint8_t* payload;
  uint64_t value;  // counter operand or reply
  uint32_t op;     // slot of the message or collective operation
  uint32_t gen;    // the slot's generation, to drop copies of finished operations
  uint32_t index;  // packet index within the message (element range for reductions)
  uint32_t context;
  int32_t dst;     // a DSP, or for counter requests the counter switch
  int32_t src;     // the DSP that made it (replicas keep the origin)
  uint16_t bytes;  // on the wire, header included
  uint16_t payload_len;
  uint16_t counter;
  PacketKind kind;
};

class PacketPool {
 public:
  uint32_t make(const Packet& p) {
    if (free_.empty()) {
      packets_.push_back(p);
      return static_cast<uint32_t>(packets_.size() - 1);
    }
    uint32_t id = free_.back();
    free_.pop_back();
    packets_[id] = p;
    return id;
  }
  void release(uint32_t id) { free_.push_back(id); }
  Packet& operator[](uint32_t id) { return packets_[id]; }
  void clear() {
    packets_.clear();
    free_.clear();
  }

 private:
  std::vector<Packet> packets_;
  std::vector<uint32_t> free_;
};

}  // namespace cct::rio
