#include "call_cost.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "cct/simulate.hpp"

namespace cct::rio_tools {
namespace {

uint64_t counter(const YAML::Node& stats, const char* key) {
  const YAML::Node value = stats[key];
  if (!value) throw std::runtime_error(std::string("simulation statistics lack '") + key + "'");
  return value.as<uint64_t>();
}

PacketCounts read_counts(const Communicator& comm) {
  return PacketCounts::parse(simulation_stats(comm.transport()));
}

double now(const Communicator& comm) {
  const std::optional<double> t = virtual_now(comm.transport());
  if (!t) throw std::runtime_error("the transport runs in real time, not in virtual time");
  return *t;
}

}  // namespace

PacketCounts PacketCounts::parse(const std::string& stats_yaml) {
  const YAML::Node stats = YAML::Load(stats_yaml);
  return PacketCounts{.data = counter(stats, "data_packets"),
                      .response = counter(stats, "response_packets"),
                      .control = counter(stats, "control_packets"),
                      .by_switches = counter(stats, "switch_packets"),
                      .hops = counter(stats, "packet_hops"),
                      .link_bytes = counter(stats, "link_bytes"),
                      .payload_bytes = counter(stats, "payload_bytes")};
}

PacketCounts PacketCounts::operator-(const PacketCounts& b) const {
  return PacketCounts{.data = data - b.data,
                      .response = response - b.response,
                      .control = control - b.control,
                      .by_switches = by_switches - b.by_switches,
                      .hops = hops - b.hops,
                      .link_bytes = link_bytes - b.link_bytes,
                      .payload_bytes = payload_bytes - b.payload_bytes};
}

CallCost measure(Bootstrap& boot, const Communicator& comm, const std::function<void()>& call) {
  boot.barrier();
  const PacketCounts before = read_counts(comm);
  const double start = now(comm);
  boot.barrier();  // nobody injects before every rank has read `before`
  call();
  const double end = now(comm);
  boot.barrier();
  const PacketCounts after = read_counts(comm);
  const double mine[2] = {start, end};
  std::vector<double> all(2 * boot.size());
  boot.allgather(mine, all.data(), sizeof mine);
  double first_start = all[0], last_end = all[1];
  for (int r = 0; r < boot.size(); ++r) {
    first_start = std::min(first_start, all[2 * r]);
    last_end = std::max(last_end, all[2 * r + 1]);
  }
  return CallCost{after - before, last_end - first_start};
}

}  // namespace cct::rio_tools
