// RapidIO fabric simulator: the platform description (the MPIRIO seed's
// BWDSP boards on a RapidIO switch fabric) and its routing.
//
// A board is `dsps_per_board` DSPs on ports 0..dsps_per_board-1 of the
// board's own switch; switch b belongs to board b, and DSP d sits on board
// d / dsps_per_board, port d % dsps_per_board. The switches' other ports
// carry switch-to-switch links. Every link, DSP-to-switch included, moves
// one maximum-size packet per switch cycle, so its rate is
// switch_clock_hz * max_packet_bytes * 8 bit/s (the seed's 4.416 Gb/s for
// 276-byte packets at 2 MHz); a shorter packet takes proportionally less.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cct::rio {

struct SwitchLink {
  int a_switch = 0, a_port = 0;
  int b_switch = 0, b_port = 0;
  // Routing weight (the MST minimises the sum); 1 unless the file says.
  int weight = 1;
};

struct FabricSpec {
  std::string name;  // the preset or file it came from, for messages
  int boards = 1;
  int dsps_per_board = 4;
  int switch_ports = 16;  // ports of every switch
  std::vector<SwitchLink> links;
  double switch_clock_hz = 2e6;  // one max-size packet per port per cycle
  int max_packet_bytes = 276;    // header + payload
  int max_payload_bytes = 250;
  // Cycles a switch holds a packet between receiving it and queueing it on
  // its output port (routing lookup).
  int switch_latency_cycles = 0;
  double dsp_clock_hz = 1e9;  // BWDSP core clock
  int dsp_bus_bytes = 8;      // bytes per DSP cycle between memory and the endpoint: a DSP
                              // injects at most dsp_clock_hz * dsp_bus_bytes bytes/s
  // Elements a DSP (resp. a switch, for in-switch reduction) combines per
  // cycle of its own clock.
  double dsp_reduce_elems_per_cycle = 1;
  double switch_reduce_elems_per_cycle = 4;
  bool mst_routing = true;  // routes along Prim's MST (else shortest paths)

  int switches() const { return boards; }
  int dsps() const { return boards * dsps_per_board; }
  int header_bytes() const { return max_packet_bytes - max_payload_bytes; }
};

// A preset ("chain:4", "ring:16", "mesh:4", "tree:64", "seed"; shapes
// chain, ring, mesh, tree with any board count >= 1) or a YAML file path.
// "" and "seed" give the seed's platform. Throws std::runtime_error naming
// the preset or file (with line) and the problem: unknown preset, port out
// of range, port used twice, link to itself, disconnected fabric, bad
// numbers.
FabricSpec load_fabric(const std::string& preset_or_path);
// The same for a fabric file's text; `source` stands for the file name in
// messages.
FabricSpec fabric_from_yaml(const std::string& text, const std::string& source);

// The canonical YAML text of a spec (every field, links sorted): the same
// fabric gives the same text, whatever preset or file it came from. The
// plugin hands it to the host as the platform's description, whose hash
// keys profiles tuned on the fabric (cct::describe_simulated).
std::string describe_fabric(const FabricSpec& spec);

// One hop of a route: leave switch `sw` through `port`.
// route_port(s, t) is the output port of switch s toward switch t (s != t).
class Routing {
 public:
  // Shortest paths by hop count (ties: the lower neighbour switch): the
  // routes the fabric's discovery finds before rewriting.
  static Routing shortest_paths(const FabricSpec& spec);
  // Paths along the minimum spanning tree Prim's algorithm grows from
  // switch 0 (ties: the lower weight, then the lower switch pair): the
  // seed's load balancing.
  static Routing minimum_spanning_tree(const FabricSpec& spec);

  int route_port(int from_switch, int to_switch) const;
  // The links (indices into spec.links) that routes use; with MST routing
  // exactly the tree's boards-1 links.
  const std::vector<int>& used_links() const { return used_links_; }
  // Switch-to-switch hops from switch a to switch b.
  int hops(int a, int b) const;

 private:
  int switches_ = 0;
  std::vector<int> port_;  // port_[from * switches_ + to], -1 on the diagonal
  std::vector<int> hops_;
  std::vector<int> used_links_;
  friend Routing routes_over(const FabricSpec&, const std::vector<int>&);
};

// Prim's MST of the switch graph as link indices, sorted (exposed for the
// brute-force comparison in the tests).
std::vector<int> prim_mst(const FabricSpec& spec);

}  // namespace cct::rio
