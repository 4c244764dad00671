// What a call costs on the simulated RapidIO fabric: the fabric's packet
// counters over the call and its virtual time.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "cct/bootstrap.hpp"
#include "cct/communicator.hpp"

namespace cct::rio_tools {

// The cumulative counters of the simulation's statistics (simulation_stats,
// see transports/rapidio_sim/engine/engine.hpp Stats), or their difference
// over a call.
struct PacketCounts {
  uint64_t data = 0;         // data packets injected by DSPs
  uint64_t response = 0;     // handshake responses injected
  uint64_t control = 0;      // counter requests and notifications
  uint64_t by_switches = 0;  // packets switches made (replicas, packed aggregates)
  uint64_t hops = 0;         // packets sent over a link, any kind
  uint64_t link_bytes = 0;
  uint64_t payload_bytes = 0;

  // Parses the YAML text; throws std::runtime_error naming a missing key.
  static PacketCounts parse(const std::string& stats_yaml);
  PacketCounts operator-(const PacketCounts& before) const;
};

struct CallCost {
  PacketCounts packets;
  double seconds = 0;  // virtual
};

// Runs call() on every rank and returns, on every rank, what it cost:
// - packets: the fabric's counters after minus before, read between
//   bootstrap barriers (which send no packets and take no virtual time), so
//   they count exactly the packets of every rank's call(), including the
//   switches' replicas and the handshake responses;
// - seconds: the latest rank's virtual time at the end of its call() minus
//   the earliest rank's at the start of its own (collected by the
//   bootstrap's allgather), so a rank that starts late or waits counts.
// Collective over the bootstrap's ranks.
CallCost measure(Bootstrap& boot, const Communicator& comm, const std::function<void()>& call);

}  // namespace cct::rio_tools
