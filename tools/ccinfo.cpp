// ccinfo: what ccautotune sees on this machine: plugin libraries (and why a
// library or an entry of one was refused), algorithms with their parameters, transports with
// their capabilities, the CUDA devices (or why there are none), the topology
// with its fingerprint, and the profile the runtime would use.
#include <CLI/CLI.hpp>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>

#include "cct/collectives.hpp"
#include "cct/device/cuda_devices.hpp"
#include "cct/error.hpp"
#include "cct/registry.hpp"
#include "cct/topology.hpp"
#include "cct/units.hpp"
#include "profile_info.hpp"

namespace {

// Keys in the order written, as ccinfo has always printed them.
using Json = nlohmann::ordered_json;

const char* const kDescription =
    "Lists the plugin libraries ccautotune finds (CCT_PLUGIN_PATH, then the\n"
    "plugin directory beside libcct), the algorithms and transports they\n"
    "provide, the CUDA devices and which of them reach each other's memory\n"
    "(or why there are none), this machine's topology and fingerprint, and the\n"
    "profile the runtime would use here (the file, why that one, what it was\n"
    "tuned on, and the rules it leaves out).\n";

const char* const kFooter =
    "Exit status: 0, or 1 when a library or an entry of one was refused, a\n"
    "CCT_PLUGIN_PATH entry does not exist, no algorithm was found or the\n"
    "topology could not be read (the rest is still listed), 2 for a bad argument.";

// "{2,3,4}" or "1..16 *2" / "0..64 +8".
std::string param_domain(const cct_param_desc& p) {
  std::ostringstream os;
  if (p.ncandidates > 0) {
    os << '{';
    for (uint32_t i = 0; i < p.ncandidates; ++i)
      os << (i ? "," : "") << cct::format_param(p, p.candidates[i]);
    os << '}';
  } else {
    os << cct::format_param(p, p.lo) << ".." << cct::format_param(p, p.hi) << ' '
       << (p.step_kind == CCT_STEP_MUL ? '*' : '+') << p.step;
  }
  return os.str();
}

std::string ranks_text(const cct_algorithm_desc& d) {
  return std::to_string(d.min_ranks) + ".." + (d.max_ranks ? std::to_string(d.max_ranks) : "any");
}

struct TopologyInfo {
  std::optional<cct::Topology> topo;
  std::string error;
};

TopologyInfo read_topology() {
  TopologyInfo info;
  try {
    info.topo.emplace(cct::Topology::discover());
  } catch (const std::exception& e) {
    info.error = e.what();
  }
  return info;
}

void print_text(const cct::Registry& reg, const TopologyInfo& topo) {
  std::cout << "Plugin libraries (" << reg.searched() << "):\n";
  for (const std::string& w : reg.warnings()) std::cout << "  WARNING: " << w << "\n";
  if (reg.reports().empty()) std::cout << "  none found\n";
  for (const auto& r : reg.reports()) {
    std::cout << "  " << r.path << "\n    ";
    if (r.loaded)
      std::cout << "loaded, ABI v" << r.abi_version << "\n";
    else
      std::cout << "REFUSED: " << r.reason << "\n";
    for (const std::string& entry : r.refused_entries) std::cout << "    REFUSED " << entry << "\n";
  }
  std::cout << "\nTransports:\n";
  for (const auto& t : reg.transports())
    std::cout << "  " << t.desc->name
              << "  capabilities: " << cct::capability_names(t.desc->capabilities) << "\n    "
              << t.desc->doc << "\n";
  std::cout << "\nAlgorithms (" << reg.algorithms().size() << ") by collective:\n";
  for (const cct::CollectiveInfo& c : cct::collectives()) {
    std::cout << "  " << c.name << ": " << c.mpi_name << "; sized by " << c.size_key << "; default "
              << c.default_algorithm << "\n";
    for (const auto& a : reg.algorithms()) {
      const cct_algorithm_desc& d = *a.desc;
      if (d.collective != c.id) continue;
      std::cout << "  " << cct::collective_name(d.collective) << "/" << d.name
                << "  needs: " << cct::capability_names(d.required_caps)
                << "  limits: " << cct::limit_names(d.limits) << "  ranks: " << ranks_text(d)
                << (a.states_cost() ? "" : "  measured only (states no cost shape)") << "\n    "
                << d.doc << "\n";
      for (uint32_t i = 0; i < d.nparams; ++i) {
        const cct_param_desc& p = d.params[i];
        std::cout << "    param " << p.name << " " << param_domain(p) << " default "
                  << cct::format_param(p, p.default_value) << "  (" << p.doc << ")\n";
      }
    }
  }
  std::cout << "\nTopology:\n";
  if (!topo.topo)
    std::cout << "  ERROR: " << topo.error << "\n";
  else
    std::cout << "  " << topo.topo->summary() << "\n  cores " << topo.topo->cores() << ", PUs "
              << topo.topo->pus() << "\n  fingerprint " << topo.topo->fingerprint()
              << " (exact form " << topo.topo->exact_fingerprint()
              << ", which profiles tuned before cache sizes were rounded carry)\n";
}

// Device indices, "0, 2", or "none".
std::string indices_text(const std::vector<int>& indices) {
  std::string text;
  for (int i : indices) text += (text.empty() ? "" : ", ") + std::to_string(i);
  return text.empty() ? "none" : text;
}

// "139.8 GiB".
std::string gib_text(std::size_t bytes) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(1) << static_cast<double>(bytes) / (1 << 30) << " GiB";
  return text.str();
}

// What the cuda transport can do here: the reason it is absent or refuses
// (its probe's, where there is no device), as a user asks "why are my GPU
// buffers not on the device path".
std::string cuda_transport_state(const cct::Registry& reg, const cct::device::CudaDevices& cuda) {
  if (reg.find_transport("cuda") == nullptr)
    return cuda.runtime_version.empty()
               ? cuda.absent
               : "not loaded (no libcct_transport_cuda.so where plugins were searched)";
  if (!cuda.absent.empty()) return "refuses here: " + cuda.absent;
  return "serves device buffers, staged through shm or mpi";
}

void print_devices(const cct::device::CudaDevices& cuda, const std::string& transport) {
  std::cout << "\nCUDA devices";
  if (!cuda.runtime_version.empty())
    std::cout << " (runtime " << cuda.runtime_version << ", driver "
              << (cuda.driver_version.empty() ? "none" : cuda.driver_version) << ")";
  std::cout << ":\n";
  if (!cuda.absent.empty()) std::cout << "  none: " << cuda.absent << "\n";
  for (const cct::device::CudaDevice& d : cuda.devices)
    std::cout << "  " << d.index << ": " << d.name << ", compute " << d.compute_major << "."
              << d.compute_minor << ", " << gib_text(d.memory_bytes) << ", PCI " << d.pci_bus_id
              << "\n    peer access to: " << indices_text(d.peers) << "\n";
  std::cout << "  transport cuda: " << transport << "\n";
}

Json json_devices(const cct::device::CudaDevices& cuda, const std::string& transport) {
  Json devices = Json::array();
  for (const cct::device::CudaDevice& d : cuda.devices)
    devices.push_back({{"index", d.index},
                       {"name", d.name},
                       {"pci_bus_id", d.pci_bus_id},
                       {"compute_capability",
                        std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor)},
                       {"memory_bytes", d.memory_bytes},
                       {"peers", d.peers}});
  return {{"absent", cuda.absent},
          {"runtime_version", cuda.runtime_version},
          {"driver_version", cuda.driver_version},
          {"devices", devices},
          {"transport", transport}};
}

void print_profile(const cct::tools::ProfileInfo& p, const std::string& fingerprint) {
  std::cout << "\nProfile:\n";
  if (p.choice.off()) {
    std::cout << "  none (" << p.choice.why << "): the runtime uses its built-in defaults\n";
    return;
  }
  if (p.choice.path.empty()) {
    std::cout << "  none: no profile declares fingerprint " << fingerprint << " in";
    for (const std::string& d : p.dirs) std::cout << " " << d;
    std::cout << ", nor one of a machine of this kind; the runtime uses its built-in defaults "
                 "(run ccautotune to make one)\n";
    return;
  }
  std::cout << "  " << p.choice.path << " (" << p.choice.why << ")\n";
  if (!p.profile) {
    std::cout << "  UNUSABLE: " << p.error << "\n";
    return;
  }
  const cct::Profile& prof = *p.profile;
  std::cout << "  tuned " << prof.date << " by ccautotune " << prof.tool_version << " on "
            << prof.machine.summary << ", fingerprint " << prof.machine.fingerprint
            << (p.this_machine ? " (this machine)"
                : p.choice.similar
                    ? " (a machine of this one's kind: its rules are used as they were tuned)"
                    : " (ANOTHER machine: its rules may not fit)")
            << "\n";
  if (p.choice.similar)
    std::cout << "  it differs from this machine in: " << p.choice.differences
              << "\n  ccautotune --from-results with that machine's results file adjusts its rules "
                 "to this one by the cost model, measuring nothing\n";
  for (const std::string& shape : p.shapes) std::cout << "  rules for " << shape << "\n";
  for (const char* key : {"min_bytes", "max_bytes", "max_rank_bytes", "accuracy", "noise"})
    if (auto it = prof.tuning.find(key); it != prof.tuning.end())
      std::cout << "  " << key << ": " << it->second << "\n";
  for (const std::string& why : p.left_out) std::cout << "  LEFT OUT: " << why << "\n";
}

// A plugin's string as JSON: a null pointer reads as "".
std::string text(const char* s) {
  return s ? s : "";
}

Json json_profile(const cct::tools::ProfileInfo& p) {
  Json j = {{"path", p.choice.path},       {"why", p.choice.why},
            {"similar", p.choice.similar}, {"differences", p.choice.differences},
            {"searched", p.dirs},          {"error", p.error}};
  if (p.profile) {
    j["date"] = p.profile->date;
    j["tool_version"] = p.profile->tool_version;
    j["fingerprint"] = p.profile->machine.fingerprint;
    j["this_machine"] = p.this_machine;
    j["summary"] = p.profile->machine.summary;
    j["shapes"] = p.shapes;
    j["left_out"] = p.left_out;
    j["tuning"] = Json::object();
    for (const auto& [key, value] : p.profile->tuning) j["tuning"][key] = value;
  }
  return j;
}

Json json_params(const cct_algorithm_desc& d) {
  Json params = Json::array();
  for (uint32_t i = 0; i < d.nparams; ++i) {
    const cct_param_desc& p = d.params[i];
    Json j = {{"name", text(p.name)},
              {"doc", text(p.doc)},
              {"type", p.type == CCT_PARAM_BYTES ? "bytes" : "int"},
              {"default", p.default_value}};
    if (p.ncandidates > 0) {
      j["candidates"] = std::vector<int64_t>(p.candidates, p.candidates + p.ncandidates);
    } else {
      j["lo"] = p.lo;
      j["hi"] = p.hi;
      j["step"] = p.step;
      j["step_kind"] = p.step_kind == CCT_STEP_MUL ? "mul" : "add";
    }
    params.push_back(std::move(j));
  }
  return params;
}

Json json_libraries(const cct::Registry& reg) {
  Json libraries = Json::array();
  for (const auto& r : reg.reports())
    libraries.push_back({{"path", r.path},
                         {"loaded", r.loaded},
                         {"abi_version", r.abi_version},
                         {"reason", r.reason},
                         {"exports", r.exports},
                         {"refused_entries", r.refused_entries}});
  return libraries;
}

Json json_transports(const cct::Registry& reg) {
  Json transports = Json::array();
  for (const auto& t : reg.transports())
    transports.push_back({{"name", text(t.desc->name)},
                          {"doc", text(t.desc->doc)},
                          {"library", t.library},
                          {"capabilities", cct::capability_names(t.desc->capabilities)},
                          {"latency_ns", t.desc->hints.latency_ns},
                          {"bandwidth_bytes_per_ns", t.desc->hints.bandwidth_bytes_per_ns}});
  return transports;
}

Json json_algorithms(const cct::Registry& reg) {
  Json algorithms = Json::array();
  for (const auto& a : reg.algorithms()) {
    const cct_algorithm_desc& d = *a.desc;
    algorithms.push_back({{"collective", cct::collective_name(d.collective)},
                          {"name", text(d.name)},
                          {"doc", text(d.doc)},
                          {"library", a.library},
                          {"requires", cct::capability_names(d.required_caps)},
                          {"limits", cct::limit_names(d.limits)},
                          {"min_ranks", d.min_ranks},
                          {"max_ranks", d.max_ranks},
                          {"cost_shape", a.states_cost()},
                          {"params", json_params(d)}});
  }
  return algorithms;
}

// The table of collectives, as the host runs them.
Json json_collectives() {
  Json collectives = Json::array();
  for (const cct::CollectiveInfo& c : cct::collectives())
    collectives.push_back({{"name", c.name},
                           {"mpi", c.mpi_name},
                           {"rooted", c.rooted},
                           {"reduction", c.reduction},
                           {"vector", c.vector()},
                           {"size_key", c.size_key},
                           {"default", c.default_algorithm}});
  return collectives;
}

Json json_topology(const TopologyInfo& topo) {
  if (!topo.topo) return {{"error", topo.error}};
  return {{"summary", topo.topo->summary()},
          {"fingerprint", topo.topo->fingerprint()},
          {"exact_fingerprint", topo.topo->exact_fingerprint()},
          {"cores", topo.topo->cores()},
          {"pus", topo.topo->pus()}};
}

void print_json(const cct::Registry& reg, const TopologyInfo& topo,
                const std::optional<cct::tools::ProfileInfo>& profile) {
  Json j = {{"searched", reg.searched()},         {"warnings", reg.warnings()},
            {"libraries", json_libraries(reg)},   {"transports", json_transports(reg)},
            {"algorithms", json_algorithms(reg)}, {"collectives", json_collectives()}};
  if (profile) j["profile"] = json_profile(*profile);
  j["topology"] = json_topology(topo);
  const cct::device::CudaDevices cuda = cct::device::cuda_devices();
  j["cuda"] = json_devices(cuda, cuda_transport_state(reg, cuda));
  // A plugin's text that is not UTF-8 is still printed, not a failure.
  std::cout << j.dump(-1, ' ', false, Json::error_handler_t::replace) << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{kDescription, "ccinfo"};
  app.footer(kFooter);
  app.set_version_flag("--version", "ccinfo " CCT_VERSION);
  bool json = false;
  app.add_flag("--json", json, "machine-readable output on stdout");
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "ccinfo: " << e.what() << "\nrun 'ccinfo --help' for usage\n";
    return 2;
  }
  cct::Registry reg;
  reg.load_default();
  const TopologyInfo topo = read_topology();
  std::optional<cct::tools::ProfileInfo> profile;
  if (topo.topo)
    profile = cct::tools::profile_info(
        reg, cct::MachineIdentity{topo.topo->fingerprints(), topo.topo->summary()});
  if (json) {
    print_json(reg, topo, profile);
  } else {
    print_text(reg, topo);
    const cct::device::CudaDevices cuda = cct::device::cuda_devices();
    print_devices(cuda, cuda_transport_state(reg, cuda));
    if (profile) print_profile(*profile, topo.topo->fingerprint());
  }
  bool refused = !reg.warnings().empty() || reg.algorithms().empty();
  for (const auto& r : reg.reports()) refused |= !r.loaded || !r.refused_entries.empty();
  return refused || !topo.topo ? 1 : 0;
}
