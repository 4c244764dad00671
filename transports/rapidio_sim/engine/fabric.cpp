// The fabric description: presets, the YAML reader with its checks, the
// canonical text and its fingerprint. Every complaint names where it comes
// from ("fabric.yaml:7" or "fabric preset 'ring:4'") and the problem.
#include "rapidio_sim/engine/fabric.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace cct::rio {
namespace {

constexpr const char* kPresetList = "chain:N, ring:N, mesh:N, tree:N, seed";
// The seed's platform: four boards of 4 BWDSPs (16 DSPs) in a chain.
constexpr const char* kSeedPreset = "chain:4";
// Children per switch in the tree preset, so that its depth is about
// log4(boards) and a switch needs 4 DSP + 1 parent + 4 child ports.
constexpr int kTreeFanOut = 4;
constexpr std::string_view kShapes[] = {"chain", "ring", "mesh", "tree"};

// The most boards a fabric may have: the simulator runs every DSP as a
// fiber with its own stack and keeps per-switch routing tables, so a
// larger fabric would exhaust memory before it told anything. Checked
// before anything is sized by the board count.
constexpr int kMaxBoards = 1024;

// The scalar fields, in the order describe_fabric writes them; exactly one
// of `whole` and `real` is set. `max` bounds what a file may ask for: far
// beyond any RapidIO part (switches have at most a few dozen ports,
// packets 276 bytes), low enough that sizes computed from them stay in an
// int and the tables they size fit in memory.
struct Field {
  const char* key;
  int FabricSpec::*whole = nullptr;
  double FabricSpec::*real = nullptr;
  double max = 0;
};
const Field kFields[] = {
    {"boards", &FabricSpec::boards, nullptr, kMaxBoards},
    {"dsps_per_board", &FabricSpec::dsps_per_board, nullptr, 64},
    {"switch_ports", &FabricSpec::switch_ports, nullptr, 256},
    {"switch_clock_hz", nullptr, &FabricSpec::switch_clock_hz, 1e12},
    {"max_packet_bytes", &FabricSpec::max_packet_bytes, nullptr, 1 << 16},
    {"max_payload_bytes", &FabricSpec::max_payload_bytes, nullptr, 1 << 16},
    {"switch_latency_cycles", &FabricSpec::switch_latency_cycles, nullptr, 1e6},
    {"dsp_clock_hz", nullptr, &FabricSpec::dsp_clock_hz, 1e12},
    {"dsp_bus_bytes", &FabricSpec::dsp_bus_bytes, nullptr, 1 << 16},
    {"dsp_reduce_elems_per_cycle", nullptr, &FabricSpec::dsp_reduce_elems_per_cycle, 1e6},
    {"switch_reduce_elems_per_cycle", nullptr, &FabricSpec::switch_reduce_elems_per_cycle, 1e6},
};

// Where a problem lies, as a message prefix: given the field's key (or
// nullptr) and the link's index (or -1).
using Locate = std::function<std::string(const char* key, int link)>;

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw std::runtime_error(where + ": " + what);
}

// Shortest text that reads back as the same double; plain digits in the
// usual range, so that "2000000" rather than "2e+06" describes a clock.
std::string number_text(double value) {
  char buf[64];
  const double magnitude = std::fabs(value);
  const auto format = magnitude == 0 || (magnitude >= 1e-6 && magnitude < 1e18)
                          ? std::chars_format::fixed
                          : std::chars_format::scientific;
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, value, format).ptr);
}

void check_numbers(const FabricSpec& spec, const Locate& at) {
  for (const Field& f : kFields) {
    const double value = f.whole ? spec.*f.whole : spec.*f.real;
    const bool may_be_zero = f.whole == &FabricSpec::switch_latency_cycles;
    if (!std::isfinite(value) || value < 0 || (value == 0 && !may_be_zero))
      fail(at(f.key, -1), std::string(f.key) +
                              (may_be_zero ? " must not be negative" : " must be positive") +
                              ", got " + number_text(value));
    if (value > f.max)
      fail(at(f.key, -1), std::string(f.key) + " must be at most " + number_text(f.max) + ", got " +
                              number_text(value));
  }
  if (spec.max_payload_bytes >= spec.max_packet_bytes)
    fail(at("max_payload_bytes", -1),
         "max_payload_bytes (" + std::to_string(spec.max_payload_bytes) +
             ") must be less than max_packet_bytes (" + std::to_string(spec.max_packet_bytes) +
             "): a packet needs room for its header");
  if (spec.dsps_per_board > spec.switch_ports)
    fail(at("switch_ports", -1), "switch_ports (" + std::to_string(spec.switch_ports) +
                                     ") cannot hold dsps_per_board (" +
                                     std::to_string(spec.dsps_per_board) + ") DSP ports");
}

// `where` is only built for a complaint: a file's locator looks nodes up.
using Where = std::function<std::string()>;

void check_endpoint(const FabricSpec& spec, int sw, int port, const Where& where) {
  const std::string switch_name = "switch " + std::to_string(sw);
  if (sw < 0 || sw >= spec.boards)
    fail(where(), switch_name + " is out of range (0.." + std::to_string(spec.boards - 1) + ")");
  const std::string port_name = "port " + std::to_string(port) + " of " + switch_name;
  if (port < 0 || port >= spec.switch_ports)
    fail(where(),
         port_name + " is out of range (switch_ports " + std::to_string(spec.switch_ports) + ")");
  if (port < spec.dsps_per_board)
    fail(where(),
         port_name + " is a DSP port (0.." + std::to_string(spec.dsps_per_board - 1) + ")");
}

void check_links(const FabricSpec& spec, const Locate& at) {
  std::vector<int> user(static_cast<size_t>(spec.boards) * spec.switch_ports, -1);
  for (int i = 0; i < static_cast<int>(spec.links.size()); ++i) {
    const SwitchLink& l = spec.links[i];
    const Where where = [&] { return at(nullptr, i) + ": link " + std::to_string(i); };
    check_endpoint(spec, l.a_switch, l.a_port, where);
    check_endpoint(spec, l.b_switch, l.b_port, where);
    if (l.a_switch == l.b_switch)
      fail(where(), "links switch " + std::to_string(l.a_switch) + " to itself");
    if (l.weight <= 0) fail(where(), "weight must be positive, got " + std::to_string(l.weight));
    for (auto [sw, port] : {std::pair{l.a_switch, l.a_port}, std::pair{l.b_switch, l.b_port}}) {
      int& owner = user[static_cast<size_t>(sw) * spec.switch_ports + port];
      if (owner >= 0)
        fail(where(), "port " + std::to_string(port) + " of switch " + std::to_string(sw) +
                          " is already used by link " + std::to_string(owner));
      owner = i;
    }
  }
}

void check_connected(const FabricSpec& spec, const Locate& at) {
  std::vector<bool> reached(spec.boards, false);
  std::vector<int> stack = {0};
  reached[0] = true;
  while (!stack.empty()) {
    const int sw = stack.back();
    stack.pop_back();
    for (const SwitchLink& l : spec.links) {
      const int other = l.a_switch == sw ? l.b_switch : l.b_switch == sw ? l.a_switch : -1;
      if (other >= 0 && !reached[other]) {
        reached[other] = true;
        stack.push_back(other);
      }
    }
  }
  const auto lost = std::find(reached.begin(), reached.end(), false);
  if (lost != reached.end())
    fail(at("links", -1), "disconnected fabric: switch " + std::to_string(lost - reached.begin()) +
                              " cannot be reached from switch 0");
}

void check_spec(const FabricSpec& spec, const Locate& at) {
  check_numbers(spec, at);
  check_links(spec, at);
  check_connected(spec, at);
}

// Links as describe_fabric lists them (a_switch < b_switch, sorted by the a
// end), so that the same fabric gives the same link indices whatever its
// source wrote first.
std::vector<SwitchLink> canonical_links(std::vector<SwitchLink> links) {
  for (SwitchLink& l : links)
    if (l.a_switch > l.b_switch) {
      std::swap(l.a_switch, l.b_switch);
      std::swap(l.a_port, l.b_port);
    }
  std::stable_sort(links.begin(), links.end(), [](const SwitchLink& x, const SwitchLink& y) {
    return std::pair{x.a_switch, x.a_port} < std::pair{y.a_switch, y.a_port};
  });
  return links;
}

// Switch-to-switch pairs of a preset shape, in the order their ports are
// handed out.
std::vector<std::pair<int, int>> shape_pairs(std::string_view shape, int boards) {
  std::vector<std::pair<int, int>> pairs;
  if (shape == "chain" || shape == "ring") {
    for (int b = 0; b + 1 < boards; ++b) pairs.emplace_back(b, b + 1);
    if (shape == "ring" && boards >= 3) pairs.emplace_back(boards - 1, 0);
  } else if (shape == "mesh") {
    int rows = static_cast<int>(std::sqrt(boards));
    while (boards % rows != 0) --rows;  // the most square grid, rows <= cols
    const int cols = boards / rows;
    for (int b = 0; b < boards; ++b) {
      if (b % cols + 1 < cols) pairs.emplace_back(b, b + 1);
      if (b + cols < boards) pairs.emplace_back(b, b + cols);
    }
  } else if (shape == "tree") {
    for (int b = 1; b < boards; ++b) pairs.emplace_back((b - 1) / kTreeFanOut, b);
  }
  return pairs;
}

FabricSpec preset_spec(const std::string& preset) {
  const std::string text = preset.empty() || preset == "seed" ? kSeedPreset : preset;
  const std::string where = "fabric preset '" + preset + "'";
  const size_t colon = text.find(':');
  const std::string shape = text.substr(0, colon);
  if (colon == std::string::npos ||
      std::find(std::begin(kShapes), std::end(kShapes), shape) == std::end(kShapes))
    fail(where, "unknown shape '" + shape + "' (presets: " + kPresetList + ")");
  FabricSpec spec;
  spec.name = preset.empty() ? "seed" : preset;
  const std::string count = text.substr(colon + 1);
  const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), spec.boards);
  if (ec != std::errc() || end != count.data() + count.size())
    fail(where, "board count '" + count + "' is not a number");
  if (spec.boards < 1 || spec.boards > kMaxBoards)
    fail(where, "boards must be 1.." + std::to_string(kMaxBoards) + ", got " + count);
  std::vector<int> next_port(spec.boards, spec.dsps_per_board);
  for (auto [a, b] : shape_pairs(shape, spec.boards))
    spec.links.push_back({a, next_port[a]++, b, next_port[b]++});
  check_spec(spec, [&](const char*, int) { return where; });
  spec.links = canonical_links(std::move(spec.links));
  return spec;
}

bool looks_like_preset(const std::string& text) {
  if (text.empty() || text == "seed") return true;
  const size_t colon = text.find(':');
  return colon != std::string::npos && colon > 0 &&
         std::all_of(text.begin(), text.begin() + colon,
                     [](unsigned char c) { return std::isalpha(c) != 0; });
}

using Keys = std::initializer_list<const char*>;

class FileReader {
 public:
  FileReader(std::string text, std::string path) : text_(std::move(text)), path_(std::move(path)) {}
  FabricSpec read();

 private:
  // yaml-cpp counts lines from 0; a node without a position is blamed on
  // line 1.
  std::string where(const YAML::Node& at) const {
    return path_ + ":" + std::to_string(std::max(at.Mark().line, 0) + 1);
  }
  [[noreturn]] void fail_at(const YAML::Node& at, const std::string& what) const {
    fail(where(at), what);
  }
  std::string locate(const char* key, int link) const;
  void check_keys(const YAML::Node& map, const std::string& ctx, Keys known) const;
  int integer(const YAML::Node& node, const std::string& ctx) const;
  double real(const YAML::Node& node, const std::string& ctx) const;
  std::pair<int, int> endpoint(const YAML::Node& node, const std::string& ctx) const;
  SwitchLink link(const YAML::Node& node, int index) const;
  FabricSpec base() const;

  std::string text_;
  std::string path_;
  YAML::Node root_;
};

std::string quoted(const YAML::Node& node) {
  return node.IsScalar() ? "'" + node.Scalar() + "'" : node.IsNull() ? "nothing" : "a collection";
}

std::string FileReader::locate(const char* key, int link) const {
  const YAML::Node links = root_["links"];
  if (link >= 0 && links.IsDefined() && links.IsSequence() && link < static_cast<int>(links.size()))
    return where(links[link]);
  if (key && root_[key].IsDefined()) return where(root_[key]);
  return where(root_);
}

// yaml-cpp keeps a key given twice; refusing it beats picking one silently.
void FileReader::check_keys(const YAML::Node& map, const std::string& ctx, Keys known) const {
  if (!map.IsMap()) fail_at(map, ctx + "expected a mapping, got " + quoted(map));
  std::set<std::string> seen;
  for (const auto& kv : map) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
    if (std::none_of(known.begin(), known.end(), [&](const char* k) { return key == k; }))
      fail_at(kv.first, ctx + "unknown field " + quoted(kv.first));
    if (!seen.insert(key).second) fail_at(kv.first, ctx + "field '" + key + "' given twice");
  }
}

int FileReader::integer(const YAML::Node& node, const std::string& ctx) const {
  int value = 0;
  if (!node.IsScalar() || !YAML::convert<int>::decode(node, value))
    fail_at(node, ctx + ": expected an integer, got " + quoted(node));
  return value;
}

double FileReader::real(const YAML::Node& node, const std::string& ctx) const {
  double value = 0;
  if (!node.IsScalar() || !YAML::convert<double>::decode(node, value))
    fail_at(node, ctx + ": expected a number, got " + quoted(node));
  return value;
}

std::pair<int, int> FileReader::endpoint(const YAML::Node& node, const std::string& ctx) const {
  if (!node.IsSequence() || node.size() != 2)
    fail_at(node, ctx + ": expected [switch, port], got " + quoted(node));
  return {integer(node[0], ctx + " switch"), integer(node[1], ctx + " port")};
}

SwitchLink FileReader::link(const YAML::Node& node, int index) const {
  const std::string ctx = "link " + std::to_string(index);
  check_keys(node, ctx + ": ", {"from", "to", "weight"});
  for (const char* end : {"from", "to"})
    if (!node[end].IsDefined()) fail_at(node, ctx + ": missing field '" + end + "'");
  const auto [a_switch, a_port] = endpoint(node["from"], ctx + " from");
  const auto [b_switch, b_port] = endpoint(node["to"], ctx + " to");
  const int weight = node["weight"].IsDefined() ? integer(node["weight"], ctx + " weight") : 1;
  return {a_switch, a_port, b_switch, b_port, weight};
}

// The spec the file's fields override: its preset, or the defaults (then
// the board count must be given).
FabricSpec FileReader::base() const {
  const YAML::Node preset = root_["preset"];
  if (!preset.IsDefined()) {
    if (!root_["boards"].IsDefined())
      fail_at(root_, "missing field 'boards' (or a 'preset' to start from)");
    return FabricSpec{};
  }
  if (!preset.IsScalar()) fail_at(preset, "preset: expected text, got " + quoted(preset));
  try {
    return preset_spec(preset.Scalar());
  } catch (const std::runtime_error& e) {
    fail_at(preset, e.what());
  }
}

FabricSpec FileReader::read() {
  try {
    root_ = YAML::Load(text_);
  } catch (const YAML::ParserException& e) {
    fail(path_ + ":" + std::to_string(e.mark.line + 1), "invalid YAML: " + e.msg);
  }
  check_keys(
      root_, "",
      {"preset", "boards", "dsps_per_board", "switch_ports", "switch_clock_hz", "max_packet_bytes",
       "max_payload_bytes", "switch_latency_cycles", "dsp_clock_hz", "dsp_bus_bytes",
       "dsp_reduce_elems_per_cycle", "switch_reduce_elems_per_cycle", "routing", "links"});
  // Reads go through a const node: yaml-cpp's non-const operator[] adds
  // the keys it looks up.
  const YAML::Node& root = root_;
  FabricSpec spec = base();
  spec.name = path_;
  for (const Field& f : kFields) {
    const YAML::Node node = root[f.key];
    if (!node.IsDefined()) continue;
    if (f.whole)
      spec.*f.whole = integer(node, f.key);
    else
      spec.*f.real = real(node, f.key);
  }
  if (const YAML::Node routing = root["routing"]; routing.IsDefined()) {
    if (!routing.IsScalar() || (routing.Scalar() != "mst" && routing.Scalar() != "shortest"))
      fail_at(routing, "routing: expected 'mst' or 'shortest', got " + quoted(routing));
    spec.mst_routing = routing.Scalar() == "mst";
  }
  if (const YAML::Node links = root["links"]; links.IsDefined()) {
    if (!links.IsSequence() && !links.IsNull())
      fail_at(links, "links: expected a list, got " + quoted(links));
    spec.links.clear();
    for (size_t i = 0; i < links.size(); ++i) spec.links.push_back(link(links[i], int(i)));
  }
  check_spec(spec, [this](const char* key, int link) { return locate(key, link); });
  spec.links = canonical_links(std::move(spec.links));
  return spec;
}

}  // namespace

FabricSpec fabric_from_yaml(const std::string& text, const std::string& source) {
  return FileReader(text, source).read();
}

FabricSpec load_fabric(const std::string& preset_or_path) {
  if (looks_like_preset(preset_or_path)) return preset_spec(preset_or_path);
  if (std::filesystem::is_regular_file(preset_or_path)) {
    std::ifstream in(preset_or_path, std::ios::binary);
    if (!in) fail(preset_or_path, "cannot read the fabric file");
    std::ostringstream text;
    text << in.rdbuf();
    return fabric_from_yaml(text.str(), preset_or_path);
  }
  throw std::runtime_error("no fabric preset or file '" + preset_or_path +
                           "' (presets: " + kPresetList + ")");
}

std::string describe_fabric(const FabricSpec& spec) {
  std::string text;
  for (const Field& f : kFields)
    text += std::string(f.key) + ": " +
            (f.whole ? std::to_string(spec.*f.whole) : number_text(spec.*f.real)) + "\n";
  text += std::string("routing: ") + (spec.mst_routing ? "mst" : "shortest") + "\n";
  const std::vector<SwitchLink> links = canonical_links(spec.links);
  text += links.empty() ? "links: []\n" : "links:\n";
  for (const SwitchLink& l : links)
    text += "  - {from: [" + std::to_string(l.a_switch) + ", " + std::to_string(l.a_port) +
            "], to: [" + std::to_string(l.b_switch) + ", " + std::to_string(l.b_port) +
            "], weight: " + std::to_string(l.weight) + "}\n";
  return text;
}

}  // namespace cct::rio
