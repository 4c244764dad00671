// RapidIO fabric simulator: a deterministic discrete-event simulation of
// DSPs and switches in virtual time, with every simulated DSP running the
// unchanged algorithm code as a fiber (Boost.Context) that yields whenever
// it waits.
//
// Model (see fabric.hpp for the platform):
// - A message is split into packets of at most max_payload_bytes payload
//   plus header_bytes of header, sharing one message identifier, and
//   reassembled at the receiver; receivers keep expected (posted receives)
//   and unexpected queues, matched FIFO per (context, source).
// - Every data packet is answered by a response packet (header only) from
//   the receiving endpoint; a send completes when its last response
//   arrived: the handshake the seed builds synchronisation on.
// - Links are store-and-forward: a packet of B bytes occupies a link for
//   B / max_packet_bytes switch cycles; each output port (of a switch or a
//   DSP) sends the queued packet of highest priority first, and of equal
//   priority the shorter first, then the older (responses and control
//   packets have higher priority than data).
// - Switches route by the tables of Routing (MST or shortest paths); they
//   also replicate broadcast packets (to every port on the route tree but
//   the one a packet came in on, dropping identifiers already seen), gather
//   packets (buffered per identifier until every port toward the members
//   delivered, then packed into as few packets as fit and forwarded toward
//   the root), reduce packets element-wise, and keep counters for barriers.
// - Virtual time is integer picoseconds; events at equal times run in the
//   order they were scheduled, so a run is reproducible bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cct/abi/common.h"
#include "rapidio_sim/engine/fabric.hpp"

namespace cct::rio {

using Time = uint64_t;  // picoseconds of virtual time

// Thrown by the p2p calls for a misuse the ABI forbids (tag or size that
// does not match the other side); the plugin turns it into
// CCT_ERR_INVALID_ARG with this text.
struct MatchError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Thrown by every blocking call once the job has deadlocked, so that each
// fiber unwinds through the algorithm code like any failure (the plugin
// turns it into a status: nothing but statuses crosses the ABI). The job's
// report (Engine::run's failures) says what each rank waited for.
struct Deadlock : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Storage of one non-blocking p2p operation; fits in a cct_request.
struct Request {
  uint64_t words[16];
};

// Statistics in the seed's spirit, cumulative since the engine was made.
struct Stats {
  uint64_t data_packets = 0;      // data packets injected by DSPs (p2p, bcast, gather, reduce)
  uint64_t response_packets = 0;  // handshake responses injected
  uint64_t control_packets = 0;   // counter requests and notifications
  uint64_t switch_packets = 0;    // packets switches made themselves (replicas, packed aggregates)
  uint64_t packet_hops = 0;       // packets sent over a link, any kind, either direction
  uint64_t link_bytes = 0;        // bytes (header included) sent over links
  uint64_t payload_bytes = 0;     // payload bytes delivered to DSPs
  uint64_t events = 0;            // simulation events processed
  std::vector<uint64_t> link_packets;        // per FabricSpec::links index, both directions
  std::vector<uint64_t> switch_packets_out;  // per switch: packets it sent on any port
  std::vector<uint64_t> dsp_packets_out;     // per DSP: packets it injected
  std::vector<Time> rank_time;  // per rank of the last run: its virtual time at the end
};

class Engine {
 public:
  explicit Engine(FabricSpec spec);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  const FabricSpec& fabric() const;
  const Routing& routing() const;

  struct Failure {
    int rank;
    std::string what;
  };
  // Runs body(rank) for ranks 0..nranks-1 (rank r on DSP r, nranks <=
  // fabric().dsps()), each on its own fiber, until every body returned or
  // nothing can progress. Returns the failures: an exception escaping a
  // body (its what()), or, when every unfinished fiber waits and no event
  // is left, one entry per waiting rank saying what it waits for
  // ("deadlock: waits for a message from DSP 3 (tag 7)"). Empty when all
  // bodies returned. Virtual time starts at 0 for each run.
  std::vector<Failure> run(int nranks, const std::function<void(int rank)>& body);

  // ---- Called from inside a fiber of run() -------------------------------

  // The engine whose fiber is running on this thread, else nullptr.
  static Engine* current();
  int current_rank() const;
  Time now() const;  // the running fiber's virtual time

  // Out-of-band meeting, no virtual time, no packets: the `count` fibers
  // that call it with the same key meet; recv (count * bytes) receives each
  // caller's `send` at its `index`. Keys are the callers' to keep unique.
  void rendezvous(uint64_t key, int index, int count, const void* send, void* recv,
                  std::size_t bytes);

  // As rendezvous without data, returning once nothing moves on the fabric
  // any more: every caller resumes at that one virtual time, with every
  // port empty, so that what follows starts from the same state whatever
  // ran before (a measurement is then independent of the ones before it).
  void quiesce(uint64_t key, int count);

  // Charges the running DSP `cycles` of its own clock (local copies and
  // reductions): its virtual time advances, other fibers run meanwhile.
  void compute(double dsp_cycles);

  // Point-to-point between DSPs of one communicator, `context` (unique per
  // communicator) keeping communicators apart. FIFO per (context, source,
  // destination); tags and byte counts must equal the other side's
  // (MatchError otherwise, from the call that finds the mismatch).
  void isend(uint32_t context, int dst_dsp, uint32_t tag, const void* buf, std::size_t bytes,
             Request& req);
  void irecv(uint32_t context, int src_dsp, uint32_t tag, void* buf, std::size_t bytes,
             Request& req);
  bool test(Request& req);
  void waitall(Request* reqs, std::size_t count);  // yields until all completed

  // Switch-assisted collectives over the DSPs `members` (index = rank in
  // the communicator); every member calls each, in the same order per
  // context. root is an index into members.
  void mcast_bcast(uint32_t context, std::span<const int> members, int root, void* buf,
                   std::size_t bytes);
  void aggregate_gather(uint32_t context, std::span<const int> members, int root, const void* send,
                        void* recv, std::size_t bytes_per_rank);
  void aggregate_reduce(uint32_t context, std::span<const int> members, int root, const void* send,
                        void* recv, std::size_t count, cct_datatype dtype, cct_op op);
  // Counters kept by the switch of the first member's board, per context;
  // counter < kCounters. fetch_add sends a request and waits for the
  // response carrying the old value; wait_ge registers with the switch,
  // which notifies once the counter reached value.
  static constexpr uint32_t kCounters = 64;
  uint64_t fetch_add(uint32_t context, std::span<const int> members, uint32_t counter,
                     uint64_t add);
  void wait_ge(uint32_t context, std::span<const int> members, uint32_t counter, uint64_t value);

  // ---- Anywhere -----------------------------------------------------------
  const Stats& stats() const;
  // stats() as YAML: per-rank virtual time (s), packets by kind, hops,
  // bytes, per link and per switch, and the average system flow (link
  // bytes per second of the longest rank time).
  std::string stats_yaml() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cct::rio
