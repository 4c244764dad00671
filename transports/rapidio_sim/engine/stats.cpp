// The statistics as YAML, in the seed's terms: per-rank times, packets by
// kind, hops, bytes, per link and per switch, and the average system flow.
#include <algorithm>
#include <cstdio>
#include <string>

#include "rapidio_sim/engine/impl.hpp"

namespace cct::rio {
namespace {

std::string seconds(Time ps) {
  char text[32];
  std::snprintf(text, sizeof text, "%.12g", static_cast<double>(ps) * 1e-12);
  return text;
}

}  // namespace

std::string Engine::stats_yaml() const {
  const Stats& s = impl_->stats;
  const FabricSpec& f = impl_->spec;
  std::string y = "fabric: " + f.name + "\nrank_time_s:\n";
  for (std::size_t r = 0; r < s.rank_time.size(); ++r) {
    y += "  - " + seconds(s.rank_time[r]) + "\n";
  }
  auto line = [&y](const char* key, uint64_t v) {
    y += std::string(key) + ": " + std::to_string(v) + "\n";
  };
  line("data_packets", s.data_packets);
  line("response_packets", s.response_packets);
  line("control_packets", s.control_packets);
  line("switch_packets", s.switch_packets);
  line("packet_hops", s.packet_hops);
  line("link_bytes", s.link_bytes);
  line("payload_bytes", s.payload_bytes);
  line("events", s.events);
  y += "links:\n";
  for (std::size_t l = 0; l < s.link_packets.size(); ++l) {
    const SwitchLink& k = f.links[l];
    y += "  - {a: [" + std::to_string(k.a_switch) + ", " + std::to_string(k.a_port) + "], b: [" +
         std::to_string(k.b_switch) + ", " + std::to_string(k.b_port) +
         "], packets: " + std::to_string(s.link_packets[l]) + "}\n";
  }
  y += "switch_packets_out:\n";
  for (uint64_t n : s.switch_packets_out) y += "  - " + std::to_string(n) + "\n";
  // The seed's figure of merit: bytes moved over links per second of the
  // slowest rank's time.
  const Time longest =
      s.rank_time.empty() ? 0 : *std::max_element(s.rank_time.begin(), s.rank_time.end());
  char flow[32];
  std::snprintf(flow, sizeof flow, "%.6g",
                longest == 0 ? 0.0 : static_cast<double>(s.link_bytes) / (longest * 1e-12));
  y += std::string("average_system_flow_bytes_per_s: ") + flow + "\n";
  return y;
}

}  // namespace cct::rio
