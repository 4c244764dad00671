// The simulation's event queue: a binary heap of small POD events ordered by
// (time, sequence of scheduling). The sequence number makes events at equal
// times run in the order they were scheduled, so a run is reproducible bit
// for bit whatever the heap's internal order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace cct::rio {

using Time = uint64_t;  // picoseconds of virtual time

enum class EventKind : uint8_t {
  kTxDone,   // a port finished serializing its packet: it reaches the far end
  kEnqueue,  // a switch queues a packet on an output port after a delay
  kWake,     // resume a waiting fiber (something it may wait for happened)
  kTimer,    // resume a fiber whose compute() time has passed
};

struct Event {
  Time time;
  uint64_t seq;
  uint32_t a;  // port or rank
  uint32_t b;  // packet
  EventKind kind;
};

class EventQueue {
 public:
  void schedule(Time time, EventKind kind, uint32_t a, uint32_t b) {
    heap_.push_back(Event{time, next_seq_++, a, b, kind});
    std::push_heap(heap_.begin(), heap_.end(), Later{});
    if (moves_packet(kind)) ++moving_;
  }
  bool empty() const { return heap_.empty(); }
  Event pop() {
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    Event e = heap_.back();
    heap_.pop_back();
    if (moves_packet(e.kind)) --moving_;
    return e;
  }
  void clear() {
    heap_.clear();
    next_seq_ = 0;
    moving_ = 0;
  }
  // Whether no packet is on its way: every packet in flight has a transfer
  // or a switch's delay pending, so none is once none of those is.
  bool network_idle() const { return moving_ == 0; }

 private:
  struct Later {
    bool operator()(const Event& x, const Event& y) const {
      return x.time != y.time ? x.time > y.time : x.seq > y.seq;
    }
  };
  static bool moves_packet(EventKind kind) {
    return kind == EventKind::kTxDone || kind == EventKind::kEnqueue;
  }

  std::vector<Event> heap_;
  uint64_t next_seq_ = 0;
  uint64_t moving_ = 0;  // events of kinds that move packets, pending
};

}  // namespace cct::rio
