// Counters for barriers, kept by the switch of the first member's board:
// a fetch_add is one control packet there and one back, and a wait_ge is
// answered by the switch itself once the counter reached the value, so a
// barrier costs no DSP-to-DSP messages.
#include <stdexcept>
#include <string>

#include "rapidio_sim/engine/impl.hpp"

namespace cct::rio {

void Engine::Impl::counter_request(int sw, PacketKind kind, uint32_t context,
                                   std::span<const int> members, uint32_t counter, uint64_t value) {
  if (members.empty() || members[0] < 0 || members[0] >= dsps) {
    throw std::invalid_argument("counter: no members, or the first is not a DSP");
  }
  if (counter >= kCounters) {
    throw std::invalid_argument("counter " + std::to_string(counter) +
                                " >= " + std::to_string(kCounters));
  }
  ranks[me()].counter_ready = false;
  Packet p{};
  p.value = value;
  p.context = context;
  p.dst = sw;
  p.src = me();
  p.bytes = static_cast<uint16_t>(header);
  p.counter = static_cast<uint16_t>(counter);
  p.kind = kind;
  inject(me(), p);
}

uint64_t Engine::Impl::fetch_add(uint32_t context, std::span<const int> members, uint32_t counter,
                                 uint64_t add) {
  const int sw = members.empty() ? 0 : members[0] / spec.dsps_per_board;
  counter_request(sw, PacketKind::kFetchAdd, context, members, counter, add);
  wait_until(WaitInfo{WaitInfo::What::kCounterReply, context, counter, 0, 0},
             [this] { return ranks[me()].counter_ready; });
  return ranks[me()].counter_value;
}

void Engine::Impl::wait_ge(uint32_t context, std::span<const int> members, uint32_t counter,
                           uint64_t value) {
  const int sw = members.empty() ? 0 : members[0] / spec.dsps_per_board;
  counter_request(sw, PacketKind::kWaitGe, context, members, counter, value);
  wait_until(WaitInfo{WaitInfo::What::kCounterValue, context, counter, value, 0},
             [this] { return ranks[me()].counter_ready; });
}

void Engine::Impl::counter_at_switch(int sw, uint32_t pkt) {
  const Packet p = packets[pkt];
  packets.release(pkt);
  CounterBlock& block = counters[p.context];
  uint64_t& value = block.value[p.counter];
  if (p.kind == PacketKind::kWaitGe) {
    if (value >= p.value) return counter_reply(sw, p.src, p.context, value);
    block.waiters.push_back(CounterBlock::Waiter{p.counter, p.value, p.src});
    return;
  }
  const uint64_t old = value;
  value += p.value;
  counter_reply(sw, p.src, p.context, old);
  // Notifications in registration order, keeping the others waiting.
  std::size_t kept = 0;
  for (const CounterBlock::Waiter& w : block.waiters) {
    if (w.counter == p.counter && value >= w.value) {
      counter_reply(sw, w.dsp, p.context, value);
    } else {
      block.waiters[kept++] = w;
    }
  }
  block.waiters.resize(kept);
}

void Engine::Impl::counter_reply(int sw, int dsp, uint32_t context, uint64_t value) {
  Packet p{};
  p.value = value;
  p.context = context;
  p.dst = dsp;
  p.src = dsp;
  p.bytes = static_cast<uint16_t>(header);
  p.kind = PacketKind::kCounterReply;
  ++stats.control_packets;
  send_from_switch(sw, route(sw, dsp / spec.dsps_per_board, dsp), packets.make(p), 0);
}

}  // namespace cct::rio
