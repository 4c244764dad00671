// ccinfo: what ccautotune sees on this machine: plugin libraries (and why a
// library was refused), algorithms with their parameters, transports with
// their capabilities, the topology with its fingerprint, and the profile the
// runtime would use.
#include <cstring>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include "cct/error.hpp"
#include "cct/registry.hpp"
#include "cct/topology.hpp"
#include "cct/units.hpp"
#include "json.hpp"
#include "profile_info.hpp"

namespace {

using cct::tools::Json;

const char* const kUsage =
    "usage: ccinfo [--json] [--help]\n"
    "\n"
    "Lists the plugin libraries ccautotune finds (CCT_PLUGIN_PATH, then the\n"
    "plugin directory beside libcct), the algorithms and transports they\n"
    "provide, this machine's topology and fingerprint, and the profile the\n"
    "runtime would use here (the file, why that one, what it was tuned on, and\n"
    "the rules it leaves out).\n"
    "\n"
    "  --json   machine-readable output on stdout\n"
    "  --help   this text\n"
    "\n"
    "Exit status: 0, or 1 when a library was refused, a CCT_PLUGIN_PATH entry\n"
    "does not exist, no algorithm was found or the topology could not be read\n"
    "(the rest is still listed), 2 for a bad argument.\n";

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
  }
  std::cout << "\nTransports:\n";
  for (const auto& t : reg.transports())
    std::cout << "  " << t.desc->name
              << "  capabilities: " << cct::capability_names(t.desc->capabilities) << "\n    "
              << t.desc->doc << "\n";
  std::cout << "\nAlgorithms (" << reg.algorithms().size() << "):\n";
  for (int c = 0; c < CCT_COLLECTIVE_COUNT; ++c) {
    for (const auto& a : reg.algorithms()) {
      const cct_algorithm_desc& d = *a.desc;
      if (d.collective != c) continue;
      std::cout << "  " << cct::collective_name(d.collective) << "/" << d.name
                << "  needs: " << cct::capability_names(d.required_caps)
                << "  limits: " << cct::limit_names(d.limits) << "  ranks: " << ranks_text(d)
                << "\n    " << d.doc << "\n";
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
              << topo.topo->pus() << "\n  fingerprint " << topo.topo->fingerprint() << "\n";
}

void print_profile(const cct::tools::ProfileInfo& p, const std::string& fingerprint) {
  std::cout << "\nProfile:\n";
  if (p.choice.path.empty()) {
    std::cout << "  none: no profile declares fingerprint " << fingerprint << " in";
    for (const std::string& d : p.dirs) std::cout << " " << d;
    std::cout << "; the runtime uses its built-in defaults (run ccautotune to make one)\n";
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
            << (p.this_machine ? " (this machine)" : " (ANOTHER machine: its rules may not fit)")
            << "\n";
  for (const std::string& shape : p.shapes) std::cout << "  rules for " << shape << "\n";
  for (const char* key : {"min_bytes", "max_bytes", "accuracy", "noise"})
    if (auto it = prof.tuning.find(key); it != prof.tuning.end())
      std::cout << "  " << key << ": " << it->second << "\n";
  for (const std::string& why : p.left_out) std::cout << "  LEFT OUT: " << why << "\n";
}

void json_profile(Json& j, const cct::tools::ProfileInfo& p) {
  j.key("profile").begin_object();
  j.key("path").value(p.choice.path).key("why").value(p.choice.why);
  j.key("searched").strings(p.dirs).key("error").value(p.error);
  if (p.profile) {
    j.key("date").value(p.profile->date).key("tool_version").value(p.profile->tool_version);
    j.key("fingerprint").value(p.profile->machine.fingerprint);
    j.key("this_machine").value(p.this_machine).key("summary").value(p.profile->machine.summary);
    j.key("shapes").strings(p.shapes).key("left_out").strings(p.left_out);
    j.key("tuning").begin_object();
    for (const auto& [key, value] : p.profile->tuning) j.key(key).value(value);
    j.end_object();
  }
  j.end_object();
}

void json_params(Json& j, const cct_algorithm_desc& d) {
  j.key("params").begin_array();
  for (uint32_t i = 0; i < d.nparams; ++i) {
    const cct_param_desc& p = d.params[i];
    j.begin_object().key("name").value(p.name).key("doc").value(p.doc);
    j.key("type").value(p.type == CCT_PARAM_BYTES ? "bytes" : "int");
    j.key("default").value(p.default_value);
    if (p.ncandidates > 0) {
      j.key("candidates").begin_array();
      for (uint32_t k = 0; k < p.ncandidates; ++k) j.value(p.candidates[k]);
      j.end_array();
    } else {
      j.key("lo").value(p.lo).key("hi").value(p.hi).key("step").value(p.step);
      j.key("step_kind").value(p.step_kind == CCT_STEP_MUL ? "mul" : "add");
    }
    j.end_object();
  }
  j.end_array();
}

void json_registry(Json& j, const cct::Registry& reg) {
  j.key("searched").value(reg.searched()).key("warnings").strings(reg.warnings());
  j.key("libraries").begin_array();
  for (const auto& r : reg.reports()) {
    j.begin_object().key("path").value(r.path).key("loaded").value(r.loaded);
    j.key("abi_version").value(int64_t{r.abi_version}).key("reason").value(r.reason);
    j.key("exports").strings(r.exports).end_object();
  }
  j.end_array().key("transports").begin_array();
  for (const auto& t : reg.transports()) {
    j.begin_object().key("name").value(t.desc->name).key("doc").value(t.desc->doc);
    j.key("library").value(t.library);
    j.key("capabilities").value(cct::capability_names(t.desc->capabilities));
    j.key("latency_ns").value(t.desc->hints.latency_ns);
    j.key("bandwidth_bytes_per_ns").value(t.desc->hints.bandwidth_bytes_per_ns).end_object();
  }
  j.end_array().key("algorithms").begin_array();
  for (const auto& a : reg.algorithms()) {
    const cct_algorithm_desc& d = *a.desc;
    j.begin_object().key("collective").value(cct::collective_name(d.collective));
    j.key("name").value(d.name).key("doc").value(d.doc).key("library").value(a.library);
    j.key("requires").value(cct::capability_names(d.required_caps));
    j.key("limits").value(cct::limit_names(d.limits));
    j.key("min_ranks").value(int64_t{d.min_ranks}).key("max_ranks").value(int64_t{d.max_ranks});
    json_params(j, d);
    j.end_object();
  }
  j.end_array();
}

void print_json(const cct::Registry& reg, const TopologyInfo& topo,
                const std::optional<cct::tools::ProfileInfo>& profile) {
  Json j(std::cout);
  j.begin_object();
  json_registry(j, reg);
  if (profile) json_profile(j, *profile);
  j.key("topology").begin_object();
  if (!topo.topo) {
    j.key("error").value(topo.error);
  } else {
    j.key("summary").value(topo.topo->summary()).key("fingerprint").value(topo.topo->fingerprint());
    j.key("cores").value(int64_t{topo.topo->cores()}).key("pus").value(int64_t{topo.topo->pus()});
  }
  j.end_object().end_object();
  std::cout << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0) {
      json = true;
    } else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::cout << kUsage;
      return 0;
    } else {
      std::cerr << "ccinfo: unknown argument '" << argv[i] << "'\n" << kUsage;
      return 2;
    }
  }
  cct::Registry reg;
  reg.load_default();
  const TopologyInfo topo = read_topology();
  std::optional<cct::tools::ProfileInfo> profile;
  if (topo.topo) profile = cct::tools::profile_info(reg, topo.topo->fingerprint());
  if (json) {
    print_json(reg, topo, profile);
  } else {
    print_text(reg, topo);
    if (profile) print_profile(*profile, topo.topo->fingerprint());
  }
  bool refused = !reg.warnings().empty() || reg.algorithms().empty();
  for (const auto& r : reg.reports()) refused |= !r.loaded;
  return refused || !topo.topo ? 1 : 0;
}
