// The RapidIO fabric description and its routing: presets, the YAML reader
// and its complaints, the canonical text, Prim's tree against a brute-force
// minimum, and routes followed hop by hop.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "rapidio_sim/engine/fabric.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using cct::rio::FabricSpec;
using cct::rio::Routing;

namespace {

// A private directory for the test's YAML files, removed with its files.
class TempDir {
 public:
  TempDir() : dir_(fs::temp_directory_path() / ("cct_rio_fabric_" + std::to_string(::getpid()))) {
    fs::create_directories(dir_);
  }
  ~TempDir() { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) const {
    const fs::path path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }

 private:
  fs::path dir_;
};

FabricSpec load_text(const std::string& name, const std::string& yaml) {
  TempDir dir;
  return cct::rio::load_fabric(dir.write(name, yaml));
}

// The message load_fabric throws for a file `name` holding `yaml`.
std::string error_of(const std::string& name, const std::string& yaml) {
  try {
    load_text(name, yaml);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  FAIL("no error for " << name << ":\n" << yaml);
  return "";
}

std::string preset_error(const std::string& preset) {
  try {
    cct::rio::load_fabric(preset);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  FAIL("no error for preset " << preset);
  return "";
}

// Union-find over switches, for the tests' own connectivity checks.
class Components {
 public:
  explicit Components(int n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  int find(int x) { return parent_[x] == x ? x : parent_[x] = find(parent_[x]); }
  bool join(int a, int b) {
    a = find(a), b = find(b);
    parent_[a] = b;
    return a != b;
  }

 private:
  std::vector<int> parent_;
};

bool connected(const FabricSpec& spec, const std::vector<int>& links) {
  Components c(spec.switches());
  int merges = 0;
  for (int i : links) merges += c.join(spec.links[i].a_switch, spec.links[i].b_switch);
  return merges == spec.switches() - 1;
}

std::vector<int> all_links(const FabricSpec& spec) {
  std::vector<int> all(spec.links.size());
  std::iota(all.begin(), all.end(), 0);
  return all;
}

int total_weight(const FabricSpec& spec, const std::vector<int>& links) {
  int sum = 0;
  for (int i : links) sum += spec.links[i].weight;
  return sum;
}

// The least weight of any spanning tree: every subset of switches-1 links
// that connects the fabric.
int brute_force_mst_weight(const FabricSpec& spec) {
  const int n = spec.switches(), m = static_cast<int>(spec.links.size());
  std::vector<bool> pick(m, false);
  std::fill(pick.end() - (n - 1), pick.end(), true);
  int best = -1;
  do {
    std::vector<int> subset;
    for (int i = 0; i < m; ++i)
      if (pick[i]) subset.push_back(i);
    if (connected(spec, subset)) {
      const int w = total_weight(spec, subset);
      best = best < 0 ? w : std::min(best, w);
    }
  } while (std::next_permutation(pick.begin(), pick.end()));
  return best;
}

// Hop counts from `from` by the tests' own BFS over every link.
std::vector<int> bfs(const FabricSpec& spec, int from) {
  std::vector<int> dist(spec.switches(), -1);
  std::vector<int> queue = {from};
  dist[from] = 0;
  for (size_t k = 0; k < queue.size(); ++k)
    for (const auto& l : spec.links)
      for (auto [x, y] : {std::pair{l.a_switch, l.b_switch}, std::pair{l.b_switch, l.a_switch}})
        if (x == queue[k] && dist[y] < 0) {
          dist[y] = dist[x] + 1;
          queue.push_back(y);
        }
  return dist;
}

// Follows route_port from switch `from` to `to`, checking each hop leaves
// through a link in `allowed`; returns the hops taken.
int walk(const FabricSpec& spec, const Routing& routing, int from, int to,
         const std::set<int>& allowed) {
  int at = from, taken = 0;
  while (at != to) {
    REQUIRE(taken < spec.switches());
    const int port = routing.route_port(at, to);
    const auto link = std::find_if(spec.links.begin(), spec.links.end(), [&](const auto& l) {
      return (l.a_switch == at && l.a_port == port) || (l.b_switch == at && l.b_port == port);
    });
    REQUIRE(link != spec.links.end());
    REQUIRE(allowed.count(static_cast<int>(link - spec.links.begin())) == 1);
    at = link->a_switch == at ? link->b_switch : link->a_switch;
    ++taken;
  }
  return taken;
}

void check_same_spec(const FabricSpec& x, const FabricSpec& y) {
  CHECK(x.boards == y.boards);
  CHECK(x.dsps_per_board == y.dsps_per_board);
  CHECK(x.switch_ports == y.switch_ports);
  CHECK(x.switch_clock_hz == y.switch_clock_hz);
  CHECK(x.max_packet_bytes == y.max_packet_bytes);
  CHECK(x.max_payload_bytes == y.max_payload_bytes);
  CHECK(x.switch_latency_cycles == y.switch_latency_cycles);
  CHECK(x.dsp_clock_hz == y.dsp_clock_hz);
  CHECK(x.dsp_bus_bytes == y.dsp_bus_bytes);
  CHECK(x.dsp_reduce_elems_per_cycle == y.dsp_reduce_elems_per_cycle);
  CHECK(x.switch_reduce_elems_per_cycle == y.switch_reduce_elems_per_cycle);
  CHECK(x.mst_routing == y.mst_routing);
  REQUIRE(x.links.size() == y.links.size());
  for (size_t i = 0; i < x.links.size(); ++i) {
    const auto &a = x.links[i], &b = y.links[i];
    CHECK(std::tuple{a.a_switch, a.a_port, a.b_switch, a.b_port, a.weight} ==
          std::tuple{b.a_switch, b.a_port, b.b_switch, b.b_port, b.weight});
  }
}

size_t expected_links(const std::string& shape, int boards) {
  if (shape == "ring") return boards >= 3 ? boards : boards - 1;
  if (shape == "mesh") {
    int rows = static_cast<int>(std::sqrt(boards));
    while (boards % rows) --rows;
    const int cols = boards / rows;
    return rows * (cols - 1) + cols * (rows - 1);
  }
  return boards - 1;
}

// A fabric of `n` switches with a link between every pair, weights from a
// fixed seed in 1..5 so that ties occur.
FabricSpec complete_graph(int n, unsigned seed) {
  FabricSpec spec;
  spec.boards = n;
  std::mt19937 random(seed);
  std::vector<int> next_port(n, spec.dsps_per_board);
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b)
      spec.links.push_back(
          {a, next_port[a]++, b, next_port[b]++, static_cast<int>(random() % 5) + 1});
  return spec;
}

}  // namespace

TEST_CASE("every preset shape builds a connected fabric of 4 DSPs per board", "[rio][fabric]") {
  for (const std::string shape : {"chain", "ring", "mesh", "tree"})
    for (const int boards : {1, 2, 4, 6, 16}) {
      const std::string preset = shape + ":" + std::to_string(boards);
      INFO(preset);
      const FabricSpec spec = cct::rio::load_fabric(preset);
      CHECK(spec.name == preset);
      CHECK(spec.switches() == boards);
      CHECK(spec.dsps() == 4 * boards);
      CHECK(spec.links.size() == expected_links(shape, boards));
      CHECK(connected(spec, all_links(spec)));
      std::set<std::pair<int, int>> ports;
      for (const auto& l : spec.links) {
        CHECK(l.a_switch < l.b_switch);
        for (auto [sw, port] : {std::pair{l.a_switch, l.a_port}, std::pair{l.b_switch, l.b_port}}) {
          CHECK(port >= spec.dsps_per_board);
          CHECK(port < spec.switch_ports);
          CHECK(ports.insert({sw, port}).second);
        }
      }
    }
}

TEST_CASE("large trees build with depth log4(boards)", "[rio][fabric]") {
  for (const int boards : {64, 256}) {
    const FabricSpec spec = cct::rio::load_fabric("tree:" + std::to_string(boards));
    CHECK(spec.dsps() == 4 * boards);
    CHECK(connected(spec, all_links(spec)));
    const std::vector<int> depth = bfs(spec, 0);
    CHECK(*std::max_element(depth.begin(), depth.end()) == (boards == 64 ? 3 : 4));
  }
  // The mesh preset is the most square grid: 4x4 has 4 corner switches.
  const FabricSpec mesh = cct::rio::load_fabric("mesh:16");
  std::vector<int> degree(16, 0);
  for (const auto& l : mesh.links) ++degree[l.a_switch], ++degree[l.b_switch];
  CHECK(std::count(degree.begin(), degree.end(), 2) == 4);
  CHECK(std::count(degree.begin(), degree.end(), 4) == 4);
}

TEST_CASE("the seed is four chained boards at 4.416 Gb/s per link", "[rio][fabric]") {
  for (const std::string name : {"seed", ""}) {
    const FabricSpec seed = cct::rio::load_fabric(name);
    CHECK(seed.name == "seed");
    CHECK(seed.dsps() == 16);
    CHECK(seed.switch_clock_hz * seed.max_packet_bytes * 8 == 4.416e9);
    CHECK(seed.header_bytes() == 26);
    CHECK(seed.mst_routing);
    CHECK(cct::rio::describe_fabric(seed) ==
          cct::rio::describe_fabric(cct::rio::load_fabric("chain:4")));
  }
}

TEST_CASE("describe_fabric reads back to the same spec", "[rio][fabric]") {
  TempDir dir;
  for (const std::string preset : {"seed", "chain:1", "ring:5", "mesh:6", "tree:21"}) {
    INFO(preset);
    FabricSpec spec = cct::rio::load_fabric(preset);
    spec.switch_clock_hz = 2.5e6;
    spec.dsp_reduce_elems_per_cycle = 0.1;
    spec.switch_latency_cycles = 3;
    spec.mst_routing = preset != "ring:5";
    const std::string text = cct::rio::describe_fabric(spec);
    const FabricSpec back = cct::rio::load_fabric(dir.write("back.yaml", text));
    check_same_spec(spec, back);
    CHECK(cct::rio::describe_fabric(back) == text);
  }
}

TEST_CASE("the same fabric from a preset and a file has one description", "[rio][fabric]") {
  // The seed's chain, links written backwards and out of order, defaults
  // implied.
  const FabricSpec file = load_text("seed.yaml",
                                    "boards: 4\n"
                                    "links:\n"
                                    "  - {from: [3, 4], to: [2, 5]}\n"
                                    "  - {from: [1, 4], to: [0, 4]}\n"
                                    "  - {from: [2, 4], to: [1, 5], weight: 1}\n");
  const FabricSpec seed = cct::rio::load_fabric("seed");
  CHECK(file.name != seed.name);
  CHECK(cct::rio::describe_fabric(file) == cct::rio::describe_fabric(seed));
  check_same_spec(file, seed);
  CHECK(cct::rio::describe_fabric(cct::rio::load_fabric("ring:4")) !=
        cct::rio::describe_fabric(seed));
  CHECK(cct::rio::describe_fabric(seed).find("seed") == std::string::npos);
}

TEST_CASE("a file's fields override its preset", "[rio][fabric]") {
  const FabricSpec spec = load_text("over.yaml",
                                    "preset: ring:4\n"
                                    "switch_latency_cycles: 3\n"
                                    "dsp_clock_hz: 5e8\n"
                                    "routing: shortest\n");
  CHECK(spec.boards == 4);
  CHECK(spec.links.size() == 4);
  CHECK(spec.switch_latency_cycles == 3);
  CHECK(spec.dsp_clock_hz == 5e8);
  CHECK_FALSE(spec.mst_routing);
  CHECK(spec.name.ends_with("over.yaml"));
}

TEST_CASE("fabric file errors name the line and the problem", "[rio][fabric]") {
  const std::string base = "boards: 2\nlinks:\n  - {from: [0, 4], to: [1, 4]}\n";
  CHECK_THAT(error_of("key.yaml", "boards: 1\nswitch_port: 16\n"),
             Contains("key.yaml:2: unknown field 'switch_port'"));
  CHECK_THAT(error_of("twice.yaml", "boards: 1\nboards: 1\n"),
             Contains("twice.yaml:2: field 'boards' given twice"));
  CHECK_THAT(error_of("clock.yaml", base + "switch_clock_hz: 0\n"),
             Contains("clock.yaml:4: switch_clock_hz must be positive, got 0"));
  CHECK_THAT(error_of("bus.yaml", base + "dsp_bus_bytes: -8\n"),
             Contains("bus.yaml:4: dsp_bus_bytes must be positive, got -8"));
  CHECK_THAT(error_of("text.yaml", "boards: two\n"),
             Contains("text.yaml:1: boards: expected an integer, got 'two'"));
  CHECK_THAT(error_of("payload.yaml", base + "max_packet_bytes: 100\nmax_payload_bytes: 100\n"),
             Contains("payload.yaml:5: max_payload_bytes (100) must be less than max_packet_bytes "
                      "(100)"));
  CHECK_THAT(error_of("boards.yaml", "dsps_per_board: 2\nboards: 0\n"),
             Contains("boards.yaml:2: boards must be positive, got 0"));
  CHECK_THAT(error_of("routing.yaml", base + "routing: fastest\n"),
             Contains("routing.yaml:4: routing: expected 'mst' or 'shortest', got 'fastest'"));
  // Found by fuzz_fabric: boards x switch_ports sized a table before any
  // bound was checked (std::bad_alloc instead of a refusal).
  CHECK_THAT(error_of("many.yaml", "boards: 2000000000\n"),
             Contains("many.yaml:1: boards must be at most 1024, got 2000000000"));
  CHECK_THAT(error_of("ports.yaml", base + "switch_ports: 100000000\n"),
             Contains("ports.yaml:4: switch_ports must be at most 256, got 100000000"));
  CHECK_THAT(error_of("nomap.yaml", "- 1\n"), Contains("nomap.yaml:1: expected a mapping"));
  CHECK_THAT(error_of("noboards.yaml", "switch_ports: 8\n"),
             Contains("noboards.yaml:1: missing field 'boards'"));
}

TEST_CASE("fabric file link errors name the line, the link and the problem", "[rio][fabric]") {
  const std::string head =
      "boards: 3\n"
      "links:\n"
      "  - {from: [0, 4], to: [1, 4]}\n";
  CHECK_THAT(error_of("dsp.yaml", head + "  - {from: [1, 3], to: [2, 4]}\n"),
             Contains("dsp.yaml:4: link 1: port 3 of switch 1 is a DSP port (0..3)"));
  CHECK_THAT(
      error_of("range.yaml", head + "  - {from: [1, 16], to: [2, 4]}\n"),
      Contains("range.yaml:4: link 1: port 16 of switch 1 is out of range (switch_ports 16)"));
  CHECK_THAT(error_of("twice.yaml", head + "  - {from: [2, 4], to: [1, 4]}\n"),
             Contains("twice.yaml:4: link 1: port 4 of switch 1 is already used by link 0"));
  CHECK_THAT(error_of("self.yaml", head + "  - {from: [2, 4], to: [2, 5]}\n"),
             Contains("self.yaml:4: link 1: links switch 2 to itself"));
  CHECK_THAT(error_of("switch.yaml", head + "  - {from: [1, 5], to: [3, 4]}\n"),
             Contains("switch.yaml:4: link 1: switch 3 is out of range (0..2)"));
  CHECK_THAT(error_of("weight.yaml", head + "  - {from: [1, 5], to: [2, 4], weight: 0}\n"),
             Contains("weight.yaml:4: link 1: weight must be positive, got 0"));
  CHECK_THAT(error_of("shape.yaml", head + "  - {from: [1, 5]}\n"),
             Contains("shape.yaml:4: link 1: missing field 'to'"));
  CHECK_THAT(error_of("apart.yaml", head), Contains("apart.yaml:3: disconnected fabric: switch 2 "
                                                    "cannot be reached from switch 0"));
}

TEST_CASE("unknown presets and missing files are refused", "[rio][fabric]") {
  CHECK_THAT(preset_error("star:4"), Contains("fabric preset 'star:4': unknown shape 'star'"));
  CHECK_THAT(preset_error("star:4"), Contains("presets: chain:N, ring:N, mesh:N, tree:N, seed"));
  CHECK_THAT(preset_error("chain:0"),
             Contains("fabric preset 'chain:0': boards must be 1..1024, got 0"));
  // Found by fuzz_fabric: a huge board count used to size tables first.
  CHECK_THAT(preset_error("tree:2000000000"),
             Contains("fabric preset 'tree:2000000000': boards must be 1..1024"));
  CHECK_THAT(preset_error("ring:x"), Contains("board count 'x' is not a number"));
  CHECK(preset_error("no/such/fabric.yaml") ==
        "no fabric preset or file 'no/such/fabric.yaml' (presets: chain:N, ring:N, mesh:N, "
        "tree:N, seed)");
  CHECK_THAT(error_of("preset.yaml", "switch_ports: 8\npreset: mesh:-1\n"),
             Contains("preset.yaml:2: fabric preset 'mesh:-1': boards must be 1..1024"));
}

TEST_CASE("Prim's tree weighs the brute-force minimum", "[rio][fabric]") {
  std::vector<FabricSpec> graphs;
  graphs.push_back(load_text("ring5.yaml",
                             "boards: 5\n"
                             "links:\n"
                             "  - {from: [0, 4], to: [1, 4], weight: 7}\n"
                             "  - {from: [0, 5], to: [4, 5], weight: 4}\n"
                             "  - {from: [1, 5], to: [2, 4], weight: 3}\n"
                             "  - {from: [2, 5], to: [3, 4], weight: 9}\n"
                             "  - {from: [3, 5], to: [4, 4], weight: 1}\n"));
  // Parallel links: the lighter of each pair is the one to take.
  graphs.push_back(load_text("parallel.yaml",
                             "boards: 4\n"
                             "links:\n"
                             "  - {from: [0, 4], to: [1, 4], weight: 3}\n"
                             "  - {from: [0, 5], to: [1, 5], weight: 1}\n"
                             "  - {from: [0, 6], to: [3, 5], weight: 6}\n"
                             "  - {from: [0, 7], to: [3, 6], weight: 4}\n"
                             "  - {from: [1, 6], to: [2, 4], weight: 2}\n"
                             "  - {from: [1, 7], to: [2, 5], weight: 2}\n"
                             "  - {from: [2, 6], to: [3, 4], weight: 5}\n"));
  FabricSpec mesh = cct::rio::load_fabric("mesh:16");
  std::mt19937 random(20240611);
  for (auto& l : mesh.links) l.weight = static_cast<int>(random() % 9) + 1;
  graphs.push_back(mesh);
  graphs.push_back(complete_graph(5, 1));
  graphs.push_back(complete_graph(6, 2));
  for (const FabricSpec& spec : graphs) {
    const std::vector<int> tree = cct::rio::prim_mst(spec);
    INFO(cct::rio::describe_fabric(spec));
    CHECK(tree.size() == static_cast<size_t>(spec.switches() - 1));
    CHECK(std::is_sorted(tree.begin(), tree.end()));
    CHECK(connected(spec, tree));
    CHECK(total_weight(spec, tree) == brute_force_mst_weight(spec));
  }
  // The ring drops its heaviest link (2-3); of the parallel links, the
  // lighter 0-1 and 0-3, and of the equal 1-2 pair the lower index.
  CHECK(cct::rio::prim_mst(graphs[0]) == std::vector<int>{0, 1, 2, 4});
  CHECK(cct::rio::prim_mst(graphs[1]) == std::vector<int>{1, 3, 4});
}

TEST_CASE("MST routing stays on the tree's links", "[rio][fabric]") {
  for (const std::string preset : {"chain:1", "ring:8", "mesh:16", "tree:21", "ring:2"}) {
    INFO(preset);
    const FabricSpec spec = cct::rio::load_fabric(preset);
    const Routing routing = Routing::minimum_spanning_tree(spec);
    const std::vector<int> tree = cct::rio::prim_mst(spec);
    CHECK(routing.used_links() == tree);
    CHECK(routing.used_links().size() == static_cast<size_t>(spec.switches() - 1));
    const std::set<int> allowed(tree.begin(), tree.end());
    for (int s = 0; s < spec.switches(); ++s)
      for (int t = 0; t < spec.switches(); ++t) {
        if (s == t) {
          CHECK(routing.hops(s, t) == 0);
          CHECK_THROWS_AS(routing.route_port(s, t), std::out_of_range);
          continue;
        }
        const int taken = walk(spec, routing, s, t, allowed);
        CHECK(taken == routing.hops(s, t));
        CHECK(taken <= spec.switches() - 1);
      }
  }
}

TEST_CASE("shortest-path routing takes BFS distances", "[rio][fabric]") {
  for (const std::string preset : {"chain:4", "ring:8", "mesh:16", "tree:21", "mesh:6"}) {
    INFO(preset);
    const FabricSpec spec = cct::rio::load_fabric(preset);
    const Routing routing = Routing::shortest_paths(spec);
    const std::vector<int> every = all_links(spec);
    const std::set<int> allowed(every.begin(), every.end());
    for (int s = 0; s < spec.switches(); ++s) {
      const std::vector<int> dist = bfs(spec, s);
      for (int t = 0; t < spec.switches(); ++t) {
        CHECK(routing.hops(s, t) == dist[t]);
        if (s != t) CHECK(walk(spec, routing, s, t, allowed) == dist[t]);
      }
    }
  }
  CHECK_THROWS_AS(Routing::shortest_paths(cct::rio::load_fabric("chain:2")).hops(0, 2),
                  std::out_of_range);
}

TEST_CASE("on a ring the MST lengthens the route across the dropped link", "[rio][fabric]") {
  // The seed's comparison of the original routes with the MST's. Prim's
  // tie-break on the lower switch pair takes link 0-7 before 6-7, so the
  // ring loses link 6-7.
  const FabricSpec ring = cct::rio::load_fabric("ring:8");
  const Routing shortest = Routing::shortest_paths(ring);
  const Routing mst = Routing::minimum_spanning_tree(ring);
  CHECK(shortest.used_links().size() == 8);
  CHECK(shortest.hops(6, 7) == 1);
  CHECK(mst.hops(6, 7) == 7);
  CHECK(mst.hops(0, 7) == 1);
  CHECK(shortest.hops(0, 4) == 4);
  CHECK(mst.route_port(6, 7) != shortest.route_port(6, 7));
  int shortest_total = 0, mst_total = 0;
  for (int s = 0; s < 8; ++s)
    for (int t = 0; t < 8; ++t) shortest_total += shortest.hops(s, t), mst_total += mst.hops(s, t);
  CHECK(mst_total > shortest_total);
  // Ties toward the lower neighbour: 0 to 4 is 4 hops either way round.
  CHECK(shortest.route_port(0, 4) == ring.links[0].a_port);
}
