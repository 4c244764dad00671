// The engine's private state, shared by the files that implement it: the
// network (network.cpp), the fibers' scheduling (engine.cpp), point-to-point
// matching (endpoint.cpp), the switches' collective operations
// (collectives.cpp), counters (counters.cpp) and statistics (stats.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rapidio_sim/engine/engine.hpp"
#include "rapidio_sim/engine/events.hpp"
#include "rapidio_sim/engine/fibers.hpp"
#include "rapidio_sim/engine/packet.hpp"
#include "rapidio_sim/engine/slots.hpp"

namespace cct::rio {

// What a blocked fiber waits for; formatted only when a deadlock is reported.
struct WaitInfo {
  enum class What : uint8_t {
    kRecv,
    kSend,
    kBcast,
    kGather,
    kReduce,
    kCounterReply,
    kCounterValue,
    kRendezvous,
    kQuiet,
    kCompute
  };
  What what = What::kCompute;
  uint64_t a = 0, b = 0, c = 0, d = 0;
};
std::string describe_wait(const WaitInfo& wait);

struct RankState {
  WaitInfo wait;
  bool wake_pending = false;
  bool counter_ready = false;  // the counter switch answered
  uint64_t counter_value = 0;
  bool met = false;  // the rendezvous it waits in is complete
};

// An output port: the packets queued on it and whether it is sending one.
struct Port {
  std::vector<std::pair<uint64_t, uint32_t>> queue;  // heap of (order key, packet)
  bool busy = false;
};

struct SendMsg {
  const uint8_t* buf = nullptr;
  std::vector<uint8_t> staging;  // packets that arrived before the receive was posted
  std::size_t bytes = 0;
  uint32_t context = 0, tag = 0;
  int src = 0, dst = 0;
  uint32_t packets = 0, delivered = 0, responses = 0;
  int64_t recv = -1;       // matched receive slot
  bool collected = false;  // the sender saw it complete
};

struct RecvOp {
  uint8_t* buf = nullptr;
  std::size_t bytes = 0;
  uint32_t context = 0, tag = 0;
  int src = 0;
  uint32_t packets = 0, received = 0;
  bool matched = false;
};

// Unmatched sends and receives between one (context, source) and one
// receiver; the n-th send matches the n-th receive, whatever order their
// packets arrive in (short last packets may overtake earlier ones).
struct Channel {
  std::deque<uint32_t> sends, recvs;
};

// A switch's share of a gather or reduction toward the root.
struct SwitchPart {
  int sw = 0;
  int parent_port = 0;  // toward the root's switch, or the root DSP's port
  bool linked = false;  // counted as an input of its parent
  uint32_t inputs = 0;  // member DSPs and child switches feeding it
  uint64_t members_below = 0;
  uint32_t expected = 0, got = 0;  // gather: packets
  std::vector<uint8_t> acc;        // reduce: combined elements
  std::vector<uint16_t> arrived;   // reduce: contributions per packet index
};

struct CollOp {
  PacketKind kind = PacketKind::kBcast;
  uint32_t context = 0, seq = 0;
  std::vector<int> members;
  std::vector<int32_t> member_of_dsp;  // -1 for non-members
  int root = 0, root_dsp = 0, root_sw = 0;
  std::size_t bytes = 0;  // bcast: message; gather: per rank; reduce: elements
  cct_datatype dtype = CCT_UINT8;
  cct_op op = CCT_SUM;
  std::size_t elem = 1;            // reduce: element size
  std::size_t packet_payload = 0;  // payload bytes of a full packet
  uint32_t packets = 0;            // packets of one member's message
  std::vector<uint8_t> staging;    // bcast: the root's data; gather: the blocks
  std::vector<uint32_t> progress;  // per member: packets received or injected
  std::size_t returned = 0;        // members whose call returned
  std::vector<uint64_t> seen;      // bcast: bit per (switch, packet index)
  std::vector<int32_t> part_of_switch;
  std::vector<SwitchPart> parts;
  uint32_t root_expected = 0, root_got = 0;
};

struct CounterBlock {
  struct Waiter {
    uint32_t counter;
    uint64_t value;
    int dsp;
  };
  uint64_t value[Engine::kCounters] = {};
  std::vector<Waiter> waiters;
};

struct Meeting {
  int count = 0, arrived = 0;
  std::size_t bytes = 0;
  std::vector<uint8_t> data;
  std::vector<std::pair<int, void*>> callers;  // rank, recv buffer
};

struct Engine::Impl {
  explicit Impl(FabricSpec fabric_spec);

  // ---- network.cpp ----
  void build_network();
  uint32_t switch_port(int sw, int port) const {
    return static_cast<uint32_t>(dsps + sw * ports_per_switch + port);
  }
  int peer_switch(int sw, int port) const;
  int route(int sw, int dst_switch, int dst_dsp) const;
  uint32_t packet_bytes(std::size_t payload) const;
  void inject(int dsp, const Packet& p);
  void send_from_switch(int sw, int port, uint32_t pkt, Time delay);
  void enqueue(uint32_t port, uint32_t pkt);
  void start_tx(uint32_t port);
  void on_tx_done(uint32_t port, uint32_t pkt);
  void switch_arrival(int sw, int in_port, uint32_t pkt);
  void dsp_arrival(int dsp, uint32_t pkt);
  void forward(int sw, uint32_t pkt);

  // ---- engine.cpp: fibers and time ----
  int me() const { return fibers.running(); }
  void wake(int rank);
  template <class Done>
  void wait_until(const WaitInfo& info, Done done) {
    while (!done()) {
      ranks[me()].wait = info;
      fibers.block();
    }
  }
  void dispatch(const Event& e);
  void reset_run_state();

  // ---- endpoint.cpp ----
  void isend(uint32_t context, int dst, uint32_t tag, const void* buf, std::size_t bytes,
             Request& req);
  void irecv(uint32_t context, int src, uint32_t tag, void* buf, std::size_t bytes, Request& req);
  bool test(Request& req);
  void waitall(Request* reqs, std::size_t count);
  void match(uint32_t send, uint32_t recv);
  void p2p_deliver(int dsp, const Packet& p);
  void p2p_response(const Packet& p);
  uint32_t packets_for(std::size_t bytes, std::size_t payload) const;

  // ---- collectives.cpp ----
  uint32_t join(PacketKind kind, uint32_t context, std::span<const int> members, int root,
                std::size_t bytes, cct_datatype dtype, cct_op op);
  void build_tree(CollOp& op);
  void leave(uint32_t slot);
  void bcast(uint32_t context, std::span<const int> members, int root, void* buf,
             std::size_t bytes);
  void gather(uint32_t context, std::span<const int> members, int root, const void* send,
              void* recv, std::size_t bytes_per_rank);
  void reduce(uint32_t context, std::span<const int> members, int root, const void* send,
              void* recv, std::size_t count, cct_datatype dtype, cct_op op);
  void inject_member_packets(uint32_t slot, int member, const uint8_t* data, std::size_t bytes);
  void on_member_injected(const Packet& p);
  void bcast_at_switch(int sw, int in_port, uint32_t pkt);
  void gather_at_switch(int sw, uint32_t pkt);
  void reduce_at_switch(int sw, uint32_t pkt);
  void collective_at_dsp(int dsp, const Packet& p);

  // ---- counters.cpp ----
  uint64_t fetch_add(uint32_t context, std::span<const int> members, uint32_t counter,
                     uint64_t add);
  void wait_ge(uint32_t context, std::span<const int> members, uint32_t counter, uint64_t value);
  void counter_request(int sw, PacketKind kind, uint32_t context, std::span<const int> members,
                       uint32_t counter, uint64_t value);
  void counter_at_switch(int sw, uint32_t pkt);
  void counter_reply(int sw, int dsp, uint32_t context, uint64_t value);

  // ---- engine.cpp: rendezvous and compute ----
  void rendezvous(uint64_t key, int index, int count, const void* send, void* recv,
                  std::size_t bytes);
  void quiesce(uint64_t key, int count);
  void compute(double dsp_cycles);

  FabricSpec spec;
  Routing routing;
  int dsps = 0;
  int ports_per_switch = 0;
  int header = 0;
  Time cycle_ps = 0;
  Time switch_latency_ps = 0;
  std::vector<Time> serialization_ps;        // by packet bytes
  std::vector<Time> injection_ps;            // the same out of a DSP: bus or link, the slower
  std::vector<Port> ports;                   // DSP d: d; switch s port p: switch_port(s, p)
  std::vector<int32_t> peer;                 // the far end's port, -1 if unconnected
  std::vector<int32_t> link_of_port;         // index into spec.links, -1 for DSP links
  std::vector<std::vector<int>> tree_ports;  // per switch: its ports on used links
  uint64_t enqueue_seq = 0;

  EventQueue events;
  PacketPool packets;
  Fibers fibers;
  Time now = 0;
  Stats stats;
  std::vector<RankState> ranks;
  std::vector<Failure> failures;

  Slots<SendMsg> sends;
  Slots<RecvOp> recvs;
  std::vector<std::unordered_map<uint64_t, Channel>> channels;  // per receiving DSP
  Slots<CollOp> colls;
  std::unordered_map<uint64_t, uint32_t> coll_by_key;            // (context, seq) -> slot
  std::vector<std::unordered_map<uint32_t, uint32_t>> coll_seq;  // per DSP: context -> calls
  std::unordered_map<uint32_t, CounterBlock> counters;           // per context
  std::unordered_map<uint64_t, Meeting> meetings;
  int quiet_waiter = -1;  // the rank waiting in quiesce() for the network to fall idle
};

}  // namespace cct::rio
