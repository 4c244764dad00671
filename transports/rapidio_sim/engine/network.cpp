// Ports, links and store-and-forward transmission. Every DSP and every
// switch port has one output port with its own queue; a link carries one
// packet at a time in each direction.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "rapidio_sim/engine/impl.hpp"

namespace cct::rio {

void Engine::Impl::build_network() {
  dsps = spec.dsps();
  ports_per_switch = spec.switch_ports;
  header = spec.header_bytes();
  cycle_ps = static_cast<Time>(std::llround(1e12 / spec.switch_clock_hz));
  switch_latency_ps = cycle_ps * static_cast<Time>(spec.switch_latency_cycles);
  // A link moves one maximum-size packet per switch cycle; a shorter packet
  // takes its share, rounded up to whole picoseconds so times stay integers.
  serialization_ps.resize(spec.max_packet_bytes + 1);
  injection_ps.resize(spec.max_packet_bytes + 1);
  const double bus_bytes_per_ps = spec.dsp_bus_bytes * spec.dsp_clock_hz * 1e-12;
  for (int b = 0; b <= spec.max_packet_bytes; ++b) {
    serialization_ps[b] = (static_cast<Time>(b) * cycle_ps + spec.max_packet_bytes - 1) /
                          static_cast<Time>(spec.max_packet_bytes);
    // A DSP feeds its endpoint from memory over its bus: a slow DSP (clock x
    // bus width below the link rate) cannot fill its link.
    const auto bus_ps = static_cast<Time>(std::ceil(b / bus_bytes_per_ps));
    injection_ps[b] = std::max(serialization_ps[b], bus_ps);
  }
  const std::size_t nports = dsps + static_cast<std::size_t>(spec.switches()) * ports_per_switch;
  ports.assign(nports, Port{});
  peer.assign(nports, -1);
  link_of_port.assign(nports, -1);
  for (int d = 0; d < dsps; ++d) {
    uint32_t sp = switch_port(d / spec.dsps_per_board, d % spec.dsps_per_board);
    peer[d] = static_cast<int32_t>(sp);
    peer[sp] = d;
  }
  for (std::size_t l = 0; l < spec.links.size(); ++l) {
    const SwitchLink& link = spec.links[l];
    uint32_t a = switch_port(link.a_switch, link.a_port);
    uint32_t b = switch_port(link.b_switch, link.b_port);
    peer[a] = static_cast<int32_t>(b);
    peer[b] = static_cast<int32_t>(a);
    link_of_port[a] = link_of_port[b] = static_cast<int32_t>(l);
  }
  tree_ports.assign(spec.switches(), {});
  for (int l : routing.used_links()) {
    const SwitchLink& link = spec.links[l];
    tree_ports[link.a_switch].push_back(link.a_port);
    tree_ports[link.b_switch].push_back(link.b_port);
  }
  for (auto& p : tree_ports) std::sort(p.begin(), p.end());
  stats.link_packets.assign(spec.links.size(), 0);
  stats.switch_packets_out.assign(spec.switches(), 0);
  stats.dsp_packets_out.assign(dsps, 0);
  channels.resize(dsps);
  coll_seq.resize(dsps);
}

int Engine::Impl::peer_switch(int sw, int port) const {
  return (peer[switch_port(sw, port)] - dsps) / ports_per_switch;
}

int Engine::Impl::route(int sw, int dst_switch, int dst_dsp) const {
  if (dst_switch != sw) return routing.route_port(sw, dst_switch);
  return dst_dsp % spec.dsps_per_board;
}

uint32_t Engine::Impl::packet_bytes(std::size_t payload) const {
  return static_cast<uint32_t>(header + payload);
}

void Engine::Impl::inject(int dsp, const Packet& p) {
  switch (p.kind) {
    case PacketKind::kP2pResponse: ++stats.response_packets; break;
    case PacketKind::kFetchAdd:
    case PacketKind::kWaitGe: ++stats.control_packets; break;
    default: ++stats.data_packets; break;
  }
  ++stats.dsp_packets_out[dsp];
  enqueue(static_cast<uint32_t>(dsp), packets.make(p));
}

void Engine::Impl::send_from_switch(int sw, int port, uint32_t pkt, Time delay) {
  delay += switch_latency_ps;
  if (delay == 0) {
    enqueue(switch_port(sw, port), pkt);
  } else {
    events.schedule(now + delay, EventKind::kEnqueue, switch_port(sw, port), pkt);
  }
}

// A port sends the highest priority first, then the shorter packet, then
// the older: one key orders all three.
void Engine::Impl::enqueue(uint32_t port, uint32_t pkt) {
  const Packet& p = packets[pkt];
  uint64_t key = (static_cast<uint64_t>(1 - packet_priority(p.kind)) << 62) |
                 (static_cast<uint64_t>(p.bytes) << 45) | enqueue_seq++;
  Port& out = ports[port];
  out.queue.emplace_back(key, pkt);
  std::push_heap(out.queue.begin(), out.queue.end(), std::greater<>{});
  if (!out.busy) start_tx(port);
}

void Engine::Impl::start_tx(uint32_t port) {
  Port& out = ports[port];
  std::pop_heap(out.queue.begin(), out.queue.end(), std::greater<>{});
  uint32_t pkt = out.queue.back().second;
  out.queue.pop_back();
  out.busy = true;
  const uint16_t bytes = packets[pkt].bytes;
  ++stats.packet_hops;
  stats.link_bytes += bytes;
  if (link_of_port[port] >= 0) ++stats.link_packets[link_of_port[port]];
  if (port >= static_cast<uint32_t>(dsps)) {
    ++stats.switch_packets_out[(port - dsps) / ports_per_switch];
  }
  const bool from_dsp = port < static_cast<uint32_t>(dsps);
  events.schedule(now + (from_dsp ? injection_ps[bytes] : serialization_ps[bytes]),
                  EventKind::kTxDone, port, pkt);
}

// Store-and-forward: the packet reaches the far end when its last byte is
// serialized, so the far end handles it in the same event.
void Engine::Impl::on_tx_done(uint32_t port, uint32_t pkt) {
  ports[port].busy = false;
  const Packet sent = packets[pkt];
  int32_t far = peer[port];
  if (far < dsps) {
    dsp_arrival(far, pkt);
  } else {
    int sw = (far - dsps) / ports_per_switch;
    switch_arrival(sw, (far - dsps) % ports_per_switch, pkt);
  }
  if (port < static_cast<uint32_t>(dsps) &&
      (sent.kind == PacketKind::kBcast || sent.kind == PacketKind::kGather ||
       sent.kind == PacketKind::kReduce)) {
    on_member_injected(sent);
  }
  if (!ports[port].busy && !ports[port].queue.empty()) start_tx(port);
}

void Engine::Impl::forward(int sw, uint32_t pkt) {
  const Packet& p = packets[pkt];
  int dst_switch = p.kind == PacketKind::kFetchAdd || p.kind == PacketKind::kWaitGe
                       ? p.dst
                       : p.dst / spec.dsps_per_board;
  send_from_switch(sw, route(sw, dst_switch, p.dst), pkt, 0);
}

void Engine::Impl::switch_arrival(int sw, int in_port, uint32_t pkt) {
  switch (packets[pkt].kind) {
    case PacketKind::kBcast: return bcast_at_switch(sw, in_port, pkt);
    case PacketKind::kGather: return gather_at_switch(sw, pkt);
    case PacketKind::kReduce: return reduce_at_switch(sw, pkt);
    case PacketKind::kFetchAdd:
    case PacketKind::kWaitGe:
      if (packets[pkt].dst == sw) return counter_at_switch(sw, pkt);
      return forward(sw, pkt);
    default: return forward(sw, pkt);
  }
}

void Engine::Impl::dsp_arrival(int dsp, uint32_t pkt) {
  const Packet p = packets[pkt];
  packets.release(pkt);
  switch (p.kind) {
    case PacketKind::kP2pData: return p2p_deliver(dsp, p);
    case PacketKind::kP2pResponse: return p2p_response(p);
    case PacketKind::kCounterReply:
      ranks[dsp].counter_ready = true;
      ranks[dsp].counter_value = p.value;
      return wake(dsp);
    case PacketKind::kBcast:
    case PacketKind::kGather:
    case PacketKind::kReduce: return collective_at_dsp(dsp, p);
    default: throw std::logic_error("rio engine: a switch request reached a DSP");
  }
}

}  // namespace cct::rio
