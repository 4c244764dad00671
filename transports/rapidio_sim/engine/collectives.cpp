// Switch-assisted collectives: broadcast replication, gather aggregation
// and in-switch reduction, the DSP side and the switch side of each.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "cct/sdk/datatype.hpp"
#include "rapidio_sim/engine/impl.hpp"

namespace cct::rio {
namespace {

const char* collective_name(PacketKind kind) {
  switch (kind) {
    case PacketKind::kBcast: return "mcast_bcast";
    case PacketKind::kGather: return "aggregate_gather";
    default: return "aggregate_reduce";
  }
}

}  // namespace

// Every member calls each collective in the same order per context, so the
// n-th call of a context on every member is the same operation: the first
// caller creates it, the last one to return frees it.
uint32_t Engine::Impl::join(PacketKind kind, uint32_t context, std::span<const int> members,
                            int root, std::size_t bytes, cct_datatype dtype, cct_op op) {
  const std::string name = collective_name(kind);
  const int self = me();
  const uint32_t seq = coll_seq[self][context]++;
  const uint64_t key = (static_cast<uint64_t>(context) << 32) | seq;
  if (auto it = coll_by_key.find(key); it != coll_by_key.end()) {
    CollOp& c = colls[it->second];
    if (c.kind != kind || c.root != root || c.bytes != bytes ||
        !std::equal(members.begin(), members.end(), c.members.begin(), c.members.end())) {
      throw std::invalid_argument(name + " on DSP " + std::to_string(self) +
                                  ": differs from the other members' call " + std::to_string(seq) +
                                  " of context " + std::to_string(context));
    }
    return it->second;
  }
  if (root < 0 || root >= static_cast<int>(members.size())) {
    throw std::invalid_argument(name + ": root " + std::to_string(root) + " is not a member index");
  }
  std::vector<int32_t> member_of_dsp(dsps, -1);
  for (std::size_t i = 0; i < members.size(); ++i) {
    const int d = members[i];
    if (d < 0 || d >= static_cast<int>(ranks.size()) || member_of_dsp[d] >= 0) {
      throw std::invalid_argument(name + ": member " + std::to_string(d) +
                                  " is not a rank or appears twice");
    }
    member_of_dsp[d] = static_cast<int32_t>(i);
  }
  if (member_of_dsp[self] < 0) {
    throw std::invalid_argument(name + ": DSP " + std::to_string(self) + " is not a member");
  }
  const uint32_t slot = colls.acquire();
  CollOp& c = colls[slot];
  c.kind = kind;
  c.context = context;
  c.seq = seq;
  c.members.assign(members.begin(), members.end());
  c.member_of_dsp = std::move(member_of_dsp);
  c.root = root;
  c.root_dsp = members[root];
  c.root_sw = c.root_dsp / spec.dsps_per_board;
  c.bytes = bytes;
  c.dtype = dtype;
  c.op = op;
  c.progress.assign(members.size(), 0);
  if (kind == PacketKind::kReduce) {
    c.elem = sdk::dtype_size(dtype);
    if (c.elem == 0 || op < CCT_SUM || op >= CCT_OP_COUNT) {
      colls.release(slot);
      throw std::invalid_argument(name + ": unknown datatype or operator");
    }
    // Whole elements only: a switch combines a packet without its neighbours.
    c.packet_payload = spec.max_payload_bytes / c.elem * c.elem;
  } else {
    c.packet_payload = spec.max_payload_bytes;
  }
  c.packets = packets_for(bytes * c.elem, c.packet_payload);
  if (kind == PacketKind::kBcast) {
    c.seen.assign((static_cast<std::size_t>(spec.switches()) * c.packets + 63) / 64, 0);
  } else {
    if (kind == PacketKind::kGather) c.staging.resize(members.size() * bytes);
    build_tree(c);
  }
  coll_by_key.emplace(key, slot);
  return slot;
}

// The tree toward the root: a switch's parent port is its route to the
// root's switch (the root DSP's port there). Only switches with members
// below them take part; each learns how many inputs feed it.
void Engine::Impl::build_tree(CollOp& c) {
  c.part_of_switch.assign(spec.switches(), -1);
  auto part_index = [&](int sw) {
    if (c.part_of_switch[sw] < 0) {
      c.part_of_switch[sw] = static_cast<int32_t>(c.parts.size());
      SwitchPart part;
      part.sw = sw;
      part.parent_port =
          sw == c.root_sw ? c.root_dsp % spec.dsps_per_board : routing.route_port(sw, c.root_sw);
      c.parts.push_back(std::move(part));
    }
    return c.part_of_switch[sw];
  };
  for (std::size_t i = 0; i < c.members.size(); ++i) {
    if (static_cast<int>(i) == c.root) continue;
    int sw = c.members[i] / spec.dsps_per_board;
    int idx = part_index(sw);
    ++c.parts[idx].inputs;
    c.parts[idx].expected += c.packets;
    ++c.parts[idx].members_below;
    while (sw != c.root_sw) {
      const int up = peer_switch(sw, c.parts[idx].parent_port);
      const int up_idx = part_index(up);
      if (!c.parts[idx].linked) {
        c.parts[idx].linked = true;
        ++c.parts[up_idx].inputs;
      }
      ++c.parts[up_idx].members_below;
      sw = up;
      idx = up_idx;
    }
  }
  if (c.parts.empty()) return;
  auto packed = [&](const SwitchPart& part) {
    return packets_for(part.members_below * c.bytes, c.packet_payload);
  };
  for (SwitchPart& part : c.parts) {
    if (part.sw == c.root_sw) continue;
    c.parts[c.part_of_switch[peer_switch(part.sw, part.parent_port)]].expected += packed(part);
  }
  c.root_expected =
      c.kind == PacketKind::kGather ? packed(c.parts[c.part_of_switch[c.root_sw]]) : c.packets;
}

void Engine::Impl::leave(uint32_t slot) {
  CollOp& c = colls[slot];
  if (++c.returned < c.members.size()) return;
  coll_by_key.erase((static_cast<uint64_t>(c.context) << 32) | c.seq);
  colls.release(slot);
}

void Engine::Impl::inject_member_packets(uint32_t slot, int member, const uint8_t* data,
                                         std::size_t bytes) {
  const CollOp& c = colls[slot];
  for (uint32_t k = 0; k < c.packets; ++k) {
    const std::size_t offset = static_cast<std::size_t>(k) * c.packet_payload;
    const std::size_t len = std::min(c.packet_payload, bytes - std::min(bytes, offset));
    Packet p{};
    p.payload = data + offset;
    p.op = slot;
    p.gen = colls.gen(slot);
    p.index = k;
    p.context = c.context;
    p.dst = c.root_dsp;
    p.src = c.members[member];
    p.bytes = static_cast<uint16_t>(packet_bytes(len));
    p.payload_len = static_cast<uint16_t>(len);
    p.kind = c.kind;
    inject(p.src, p);
  }
}

// Senders of collectives do posted writes: they are done once their last
// packet left the DSP, no response comes back.
void Engine::Impl::on_member_injected(const Packet& p) {
  CollOp& c = colls[p.op];
  const int member = c.member_of_dsp[p.src];
  if (++c.progress[member] == c.packets) wake(p.src);
}

void Engine::Impl::collective_at_dsp(int dsp, const Packet& p) {
  if (!colls.live(p.op, p.gen)) return;
  CollOp& c = colls[p.op];
  stats.payload_bytes += p.payload_len;
  if (p.kind == PacketKind::kBcast) {
    if (++c.progress[c.member_of_dsp[dsp]] == c.packets) wake(dsp);
  } else if (++c.root_got == c.root_expected) {
    wake(dsp);
  }
}

void Engine::Impl::bcast(uint32_t context, std::span<const int> members, int root, void* buf,
                         std::size_t bytes) {
  const uint32_t slot = join(PacketKind::kBcast, context, members, root, bytes, CCT_UINT8, CCT_SUM);
  const int member = colls[slot].member_of_dsp[me()];
  const WaitInfo info{WaitInfo::What::kBcast, context, colls[slot].seq, colls[slot].packets,
                      static_cast<uint64_t>(members[root])};
  auto done = [this, slot, member] { return colls[slot].progress[member] == colls[slot].packets; };
  if (members.size() > 1) {
    if (member == root) {
      // The root's buffer is the caller's again once the call returns, but
      // replicas are delivered later: they read a staging copy.
      colls[slot].staging.assign(static_cast<uint8_t*>(buf), static_cast<uint8_t*>(buf) + bytes);
      inject_member_packets(slot, member, colls[slot].staging.data(), bytes);
      wait_until(info, done);
    } else {
      wait_until(info, done);
      if (bytes > 0) std::memcpy(buf, colls[slot].staging.data(), bytes);
    }
  }
  leave(slot);
}

void Engine::Impl::bcast_at_switch(int sw, int in_port, uint32_t pkt) {
  const Packet p = packets[pkt];
  if (!colls.live(p.op, p.gen)) return packets.release(pkt);
  CollOp& c = colls[p.op];
  const std::size_t bit = static_cast<std::size_t>(sw) * c.packets + p.index;
  uint64_t& word = c.seen[bit / 64];
  const uint64_t mask = uint64_t{1} << (bit % 64);
  // On routes with cycles a packet can come back along another path.
  if (word & mask) return packets.release(pkt);
  word |= mask;
  uint32_t copies = 0;
  auto send_copy = [&](int port) {
    send_from_switch(sw, port, copies == 0 ? pkt : packets.make(p), 0);
    ++copies;
  };
  for (int port : tree_ports[sw]) {
    if (port != in_port) send_copy(port);
  }
  for (int port = 0; port < spec.dsps_per_board; ++port) {
    const int dsp = sw * spec.dsps_per_board + port;
    if (port != in_port && dsp != c.root_dsp && c.member_of_dsp[dsp] >= 0) send_copy(port);
  }
  if (copies == 0) return packets.release(pkt);
  stats.switch_packets += copies - 1;
}

void Engine::Impl::gather(uint32_t context, std::span<const int> members, int root,
                          const void* send, void* recv, std::size_t bytes_per_rank) {
  const uint32_t slot =
      join(PacketKind::kGather, context, members, root, bytes_per_rank, CCT_UINT8, CCT_SUM);
  const int member = colls[slot].member_of_dsp[me()];
  const WaitInfo info{WaitInfo::What::kGather, context, colls[slot].seq, 0,
                      static_cast<uint64_t>(members[root])};
  if (member != root) {
    // Staged because the packed packets reach the root after this returns.
    uint8_t* block = colls[slot].staging.data() + member * bytes_per_rank;
    if (bytes_per_rank > 0) std::memcpy(block, send, bytes_per_rank);
    inject_member_packets(slot, member, block, bytes_per_rank);
    wait_until(
        info, [this, slot, member] { return colls[slot].progress[member] == colls[slot].packets; });
  } else {
    wait_until(info, [this, slot] { return colls[slot].root_got == colls[slot].root_expected; });
    const CollOp& c = colls[slot];
    auto* out = static_cast<uint8_t*>(recv);
    for (std::size_t i = 0; i < members.size() && bytes_per_rank > 0; ++i) {
      uint8_t* block = out + i * bytes_per_rank;
      if (static_cast<int>(i) == root) {
        if (block != send) std::memmove(block, send, bytes_per_rank);
      } else {
        std::memcpy(block, c.staging.data() + i * bytes_per_rank, bytes_per_rank);
      }
    }
  }
  leave(slot);
}

// A switch absorbs gather packets until every input delivered, then packs
// all the blocks below it into as few packets as fit.
void Engine::Impl::gather_at_switch(int sw, uint32_t pkt) {
  const Packet p = packets[pkt];
  packets.release(pkt);
  if (!colls.live(p.op, p.gen)) return;
  CollOp& c = colls[p.op];
  SwitchPart& part = c.parts[c.part_of_switch[sw]];
  if (++part.got < part.expected) return;
  const std::size_t total = part.members_below * c.bytes;
  const uint32_t n = packets_for(total, c.packet_payload);
  for (uint32_t k = 0; k < n; ++k) {
    const std::size_t offset = static_cast<std::size_t>(k) * c.packet_payload;
    const std::size_t len = std::min(c.packet_payload, total - std::min(total, offset));
    Packet out = p;
    out.payload = nullptr;  // the blocks themselves wait in the operation's staging
    out.index = k;
    out.bytes = static_cast<uint16_t>(packet_bytes(len));
    out.payload_len = static_cast<uint16_t>(len);
    send_from_switch(sw, part.parent_port, packets.make(out), 0);
  }
  stats.switch_packets += n;
}

void Engine::Impl::reduce(uint32_t context, std::span<const int> members, int root,
                          const void* send, void* recv, std::size_t count, cct_datatype dtype,
                          cct_op op) {
  const uint32_t slot = join(PacketKind::kReduce, context, members, root, count, dtype, op);
  const int member = colls[slot].member_of_dsp[me()];
  const std::size_t bytes = count * colls[slot].elem;
  const WaitInfo info{WaitInfo::What::kReduce, context, colls[slot].seq, 0,
                      static_cast<uint64_t>(members[root])};
  if (member != root) {
    // Switches read the payload on arrival, before the send counts as
    // injected, so the caller's buffer needs no staging copy.
    inject_member_packets(slot, member, static_cast<const uint8_t*>(send), bytes);
    wait_until(
        info, [this, slot, member] { return colls[slot].progress[member] == colls[slot].packets; });
    return leave(slot);
  }
  if (recv != send && bytes > 0) std::memmove(recv, send, bytes);
  if (members.size() > 1) {
    wait_until(info, [this, slot] { return colls[slot].root_got == colls[slot].root_expected; });
    const CollOp& c = colls[slot];
    sdk::reduce_local(recv, c.parts[c.part_of_switch[c.root_sw]].acc.data(), count, dtype, op);
    compute(static_cast<double>(count) / spec.dsp_reduce_elems_per_cycle);
  }
  leave(slot);
}

// Streaming: packet k goes up as soon as every input delivered its packet
// k, after the switch's combining time for that many elements.
void Engine::Impl::reduce_at_switch(int sw, uint32_t pkt) {
  const Packet p = packets[pkt];
  if (!colls.live(p.op, p.gen)) return packets.release(pkt);
  CollOp& c = colls[p.op];
  SwitchPart& part = c.parts[c.part_of_switch[sw]];
  if (part.arrived.empty()) {
    part.acc.resize(c.bytes * c.elem);
    part.arrived.assign(c.packets, 0);
  }
  uint8_t* acc = part.acc.data() + static_cast<std::size_t>(p.index) * c.packet_payload;
  const std::size_t elems = p.payload_len / c.elem;
  if (part.arrived[p.index] == 0) {
    if (p.payload_len > 0) std::memcpy(acc, p.payload, p.payload_len);
  } else {
    sdk::reduce_local(acc, p.payload, elems, c.dtype, c.op);
  }
  if (++part.arrived[p.index] < part.inputs) return packets.release(pkt);
  packets[pkt].payload = acc;
  ++stats.switch_packets;
  const Time combine = static_cast<Time>(
      std::ceil(static_cast<double>(elems) * cycle_ps / spec.switch_reduce_elems_per_cycle));
  send_from_switch(sw, part.parent_port, pkt, combine);
}

}  // namespace cct::rio
