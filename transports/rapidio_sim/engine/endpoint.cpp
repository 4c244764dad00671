// Point-to-point messages: packetisation, FIFO matching per (context,
// source), reassembly, and the response handshake that completes a send.
#include <cstring>
#include <stdexcept>
#include <string>

#include "rapidio_sim/engine/impl.hpp"

namespace cct::rio {
namespace {

enum RequestKind : uint64_t { kNoRequest = 0, kSendRequest = 1, kRecvRequest = 2 };

uint64_t channel_key(uint32_t context, int src) {
  return (static_cast<uint64_t>(context) << 32) | static_cast<uint32_t>(src);
}

void check_match(const SendMsg& s, const RecvOp& r, bool send_side) {
  const std::string what = "message from DSP " + std::to_string(s.src) + " to DSP " +
                           std::to_string(s.dst) + " (context " + std::to_string(s.context) + "): ";
  const char* caller = send_side ? "isend" : "irecv";
  if (s.tag != r.tag) {
    throw MatchError(std::string(caller) + ": " + what + "send tag " + std::to_string(s.tag) +
                     " does not match receive tag " + std::to_string(r.tag));
  }
  if (s.bytes != r.bytes) {
    throw MatchError(std::string(caller) + ": " + what + "send of " + std::to_string(s.bytes) +
                     " bytes does not match receive of " + std::to_string(r.bytes) + " bytes");
  }
}

}  // namespace

// A 0-byte message still takes one header-only packet: the receiver must
// learn of it and answer it.
uint32_t Engine::Impl::packets_for(std::size_t bytes, std::size_t payload) const {
  return bytes == 0 ? 1 : static_cast<uint32_t>((bytes + payload - 1) / payload);
}

void Engine::Impl::isend(uint32_t context, int dst, uint32_t tag, const void* buf,
                         std::size_t bytes, Request& req) {
  if (dst < 0 || dst >= static_cast<int>(ranks.size()))
    throw std::invalid_argument("isend: no rank on DSP " + std::to_string(dst));
  const int src = me();
  Channel& ch = channels[dst][channel_key(context, src)];
  SendMsg msg;
  msg.buf = static_cast<const uint8_t*>(buf);
  msg.bytes = bytes;
  msg.context = context;
  msg.tag = tag;
  msg.src = src;
  msg.dst = dst;
  msg.packets = packets_for(bytes, spec.max_payload_bytes);
  if (!ch.recvs.empty()) check_match(msg, recvs[ch.recvs.front()], true);
  const uint32_t slot = sends.acquire();
  sends[slot] = std::move(msg);
  if (ch.recvs.empty()) {
    ch.sends.push_back(slot);
  } else {
    match(slot, ch.recvs.front());
    ch.recvs.pop_front();
  }
  const std::size_t payload = spec.max_payload_bytes;
  for (uint32_t k = 0; k < sends[slot].packets; ++k) {
    const std::size_t len = std::min(payload, bytes - std::min(bytes, k * payload));
    Packet p{};
    p.payload = static_cast<const uint8_t*>(buf) + k * payload;
    p.op = slot;
    p.index = k;
    p.context = context;
    p.dst = dst;
    p.src = src;
    p.bytes = static_cast<uint16_t>(packet_bytes(len));
    p.payload_len = static_cast<uint16_t>(len);
    p.kind = PacketKind::kP2pData;
    inject(src, p);
  }
  req.words[0] = kSendRequest;
  req.words[1] = slot;
}

void Engine::Impl::irecv(uint32_t context, int src, uint32_t tag, void* buf, std::size_t bytes,
                         Request& req) {
  if (src < 0 || src >= static_cast<int>(ranks.size()))
    throw std::invalid_argument("irecv: no rank on DSP " + std::to_string(src));
  Channel& ch = channels[me()][channel_key(context, src)];
  RecvOp op;
  op.buf = static_cast<uint8_t*>(buf);
  op.bytes = bytes;
  op.context = context;
  op.tag = tag;
  op.src = src;
  op.packets = packets_for(bytes, spec.max_payload_bytes);
  if (!ch.sends.empty()) check_match(sends[ch.sends.front()], op, false);
  const uint32_t slot = recvs.acquire();
  recvs[slot] = std::move(op);
  if (ch.sends.empty()) {
    ch.recvs.push_back(slot);
  } else {
    match(ch.sends.front(), slot);
    ch.sends.pop_front();
  }
  req.words[0] = kRecvRequest;
  req.words[1] = slot;
}

// Packets that arrived before the receive was posted wait in the message's
// staging copy; they are copied now, later ones go straight to the buffer.
void Engine::Impl::match(uint32_t send, uint32_t recv) {
  SendMsg& s = sends[send];
  RecvOp& r = recvs[recv];
  s.recv = recv;
  r.matched = true;
  r.received = s.delivered;
  if (!s.staging.empty()) {
    std::memcpy(r.buf, s.staging.data(), s.bytes);
    std::vector<uint8_t>().swap(s.staging);
  }
  if (s.collected) sends.release(send);
}

void Engine::Impl::p2p_deliver(int dsp, const Packet& p) {
  SendMsg& s = sends[p.op];
  ++s.delivered;
  stats.payload_bytes += p.payload_len;
  const std::size_t offset = static_cast<std::size_t>(p.index) * spec.max_payload_bytes;
  if (s.recv >= 0) {
    RecvOp& r = recvs[static_cast<uint32_t>(s.recv)];
    if (p.payload_len > 0) std::memcpy(r.buf + offset, p.payload, p.payload_len);
    if (++r.received == r.packets) wake(dsp);
  } else if (p.payload_len > 0) {
    if (s.staging.empty()) s.staging.resize(s.bytes);
    std::memcpy(s.staging.data() + offset, p.payload, p.payload_len);
  }
  Packet response{};
  response.op = p.op;
  response.index = p.index;
  response.context = p.context;
  response.dst = p.src;
  response.src = dsp;
  response.bytes = static_cast<uint16_t>(header);
  response.kind = PacketKind::kP2pResponse;
  inject(dsp, response);
}

void Engine::Impl::p2p_response(const Packet& p) {
  SendMsg& s = sends[p.op];
  if (++s.responses == s.packets) wake(s.src);
}

bool Engine::Impl::test(Request& req) {
  const uint32_t slot = static_cast<uint32_t>(req.words[1]);
  switch (req.words[0]) {
    case kNoRequest: return true;
    case kSendRequest: {
      SendMsg& s = sends[slot];
      if (s.responses < s.packets) return false;
      s.collected = true;
      if (s.recv >= 0) sends.release(slot);
      break;
    }
    case kRecvRequest: {
      RecvOp& r = recvs[slot];
      if (!r.matched || r.received < r.packets) return false;
      recvs.release(slot);
      break;
    }
    default: throw std::invalid_argument("rio engine: not a request of this engine");
  }
  req.words[0] = kNoRequest;
  return true;
}

void Engine::Impl::waitall(Request* reqs, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    Request& req = reqs[i];
    if (test(req)) continue;
    const uint32_t slot = static_cast<uint32_t>(req.words[1]);
    WaitInfo info;
    if (req.words[0] == kSendRequest) {
      const SendMsg& s = sends[slot];
      info = WaitInfo{WaitInfo::What::kSend, static_cast<uint64_t>(s.dst), s.tag, s.context, 0};
    } else {
      const RecvOp& r = recvs[slot];
      info = WaitInfo{WaitInfo::What::kRecv, static_cast<uint64_t>(r.src), r.tag, r.context, 0};
    }
    wait_until(info, [this, &req] { return test(req); });
  }
}

}  // namespace cct::rio
