// The plugin registry: lists a library's exports from its ELF "cct" section
// without loading it (see elf_exports.hpp), loads with Boost.DLL only libraries that
// export a symbol of an ABI version this host knows (version 1 through the
// adapter, abi_v1.hpp), validates every descriptor, and refuses a bad
// library with its reason while the rest load, and a bad entry alone.
#include "cct/registry.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <boost/dll/shared_library.hpp>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

#include "abi_v1.hpp"
#include "cct/abi/export.h"
#include "cct/collectives.hpp"
#include "cct/error.hpp"
#include "elf_exports.hpp"

namespace cct {

class LoadedLibrary {
 public:
  explicit LoadedLibrary(const std::string& path)
      : lib_(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local) {}
  const void* exported(const std::string& symbol) { return lib_.get<const void*>(symbol); }

 private:
  boost::dll::shared_library lib_;
};

namespace {

namespace fs = std::filesystem;

// The ABI versions this host understands, newest first.
constexpr unsigned kKnownVersions[] = {CCT_ABI_VERSION, 1};
static_assert(CCT_ABI_VERSION == 2, "a new ABI version: list it here and adapt the one before");

bool knows(unsigned version) {
  return std::find(std::begin(kKnownVersions), std::end(kKnownVersions), version) !=
         std::end(kKnownVersions);
}

// "versions 2 and 1"
std::string spoken() {
  std::string text = "versions";
  const std::size_t n = std::size(kKnownVersions);
  for (std::size_t i = 0; i < n; ++i)
    text += (i == 0 ? " " : i + 1 == n ? " and " : ", ") + std::to_string(kKnownVersions[i]);
  return text;
}

// "cct_algorithms_v2, cct_transport_v2, cct_algorithms_v1, cct_transport_v1"
std::string known_symbols() {
  std::string text;
  for (unsigned v : kKnownVersions)
    text += (text.empty() ? "" : ", ") + ("cct_algorithms_v" + std::to_string(v)) +
            ", cct_transport_v" + std::to_string(v);
  return text;
}

// Parses "cct_<kind>_v<N>"; returns 0 when symbol is not of that kind.
unsigned version_of(const std::string& symbol, const std::string& kind) {
  const std::string prefix = "cct_" + kind + "_v";
  if (symbol.rfind(prefix, 0) != 0) return 0;
  const std::string digits = symbol.substr(prefix.size());
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return 0;
  return static_cast<unsigned>(std::stoul(digits));
}

// The newest version of `kind` that both the library exports and this host
// knows; 0 if none. *newest_seen gets the newest exported at all.
unsigned pick_version(const std::vector<std::string>& exports, const std::string& kind,
                      unsigned* newest_seen) {
  std::set<unsigned> offered;
  for (const auto& s : exports)
    if (unsigned v = version_of(s, kind)) offered.insert(v);
  *newest_seen = offered.empty() ? 0 : *offered.rbegin();
  for (unsigned v : kKnownVersions)
    if (offered.count(v)) return v;
  return 0;
}

bool valid_name(const char* name) {
  if (name == nullptr || *name == '\0') return false;
  for (const char* p = name; *p; ++p)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')) return false;
  return true;
}

// "" when the header of a struct exported as `version` is one this host can
// read.
std::string check_header(uint32_t struct_size, uint32_t abi_version, unsigned version,
                         std::size_t min_size, const char* what) {
  std::ostringstream os;
  if (abi_version != version && !knows(abi_version))
    os << what << " declares ABI version " << abi_version << ", this host speaks " << spoken();
  else if (abi_version != version)
    os << what << " declares ABI version " << abi_version << " behind a version " << version
       << " symbol";
  else if (struct_size < min_size)
    os << what << " is " << struct_size << " bytes, version " << abi_version << " needs "
       << min_size;
  return os.str();
}

// A collective of the entry's ABI version that this host runs.
bool known_collective(const AlgorithmEntry& a) {
  const int c = raw_enum(a.desc->collective);  // a plugin's value may lie outside the enum
  return c >= 0 && c < (a.v1 ? abi_v1::kCollectiveCount : CCT_COLLECTIVE_COUNT);
}

std::string check_param(const cct_param_desc& p) {
  if (!valid_name(p.name)) return "a parameter has an invalid name";
  if (p.ncandidates > 0 && p.candidates == nullptr)
    return std::string("parameter '") + p.name + "' has candidates but no array";
  if (p.ncandidates == 0 &&
      (p.lo > p.hi || p.step <= 0 || (p.step_kind == CCT_STEP_MUL && p.step < 2)))
    return std::string("parameter '") + p.name + "' has an empty or endless range";
  return "";
}

bool has_functions(const AlgorithmEntry& a) {
  const cct_algorithm_desc& d = *a.desc;
  return a.v1 ? a.v1->has_functions() : d.can_use && d.prepare && d.run && d.destroy;
}

// Reads entry `d` of a set exported as `version` into entry.desc (through
// the adapter for version 1): "" or why its header is refused.
std::string read_algorithm(const cct_algorithm_desc* d, unsigned version, AlgorithmEntry& entry) {
  if (d == nullptr) return "the algorithm table holds a null entry";
  // A version 2 descriptor compiled before `cost` was appended ends there.
  const std::size_t size =
      version == 1 ? abi_v1::kAlgorithmDescSize : offsetof(cct_algorithm_desc, cost);
  if (auto e = check_header(d->struct_size, d->abi_version, version, size, "algorithm descriptor");
      !e.empty())
    return e;
  if (version == 1) {
    entry.v1 = std::make_shared<const abi_v1::Algorithm>(d);
    entry.desc = &entry.v1->metadata();
  } else {
    entry.desc = d;
  }
  return "";
}

// "" when an entry whose header was read is whole.
std::string check_algorithm(const AlgorithmEntry& a) {
  const cct_algorithm_desc& d = *a.desc;
  if (!valid_name(d.name))
    return std::string("name '") + (d.name ? d.name : "(null)") + "' is not [a-z0-9_]+";
  if (!known_collective(a))
    return "names collective " + std::to_string(raw_enum(d.collective)) + ", unknown to this host";
  if (!has_functions(a)) return "lacks a function (can_use/prepare/run/destroy)";
  if (d.nparams > 0 && d.params == nullptr) return "declares parameters but no table";
  for (uint32_t i = 0; i < d.nparams; ++i)
    if (auto e = check_param(d.params[i]); !e.empty()) return e;
  return "";
}

// How a refused entry is named: "bcast/name" where its header was read and
// it has a valid name and a known collective, else by its place.
std::string entry_label(const AlgorithmEntry& a, uint32_t index) {
  if (a.desc && valid_name(a.desc->name) && known_collective(a))
    return std::string(collective_name(a.desc->collective)) + "/" + a.desc->name;
  return "entry " + std::to_string(index);
}

}  // namespace

std::string host_library_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&host_library_dir), &info) == 0 || !info.dli_fname)
    return "";
  // The loader may name it through the RPATH, as bin/../lib/libcct.so.
  return fs::path(info.dli_fname).lexically_normal().parent_path().string();
}

bool AlgorithmEntry::takes_device_memory() const {
  return (desc->limits & CCT_LIMIT_DEVICE_MEMORY) != 0;
}

bool AlgorithmEntry::runs_on_device_memory() const {
  return takes_device_memory() && (desc->limits & CCT_LIMIT_IN_PLACE) != 0;
}

std::vector<int64_t> AlgorithmEntry::default_params() const {
  std::vector<int64_t> values;
  for (uint32_t i = 0; i < desc->nparams; ++i) values.push_back(desc->params[i].default_value);
  return values;
}

std::vector<int64_t> AlgorithmEntry::param_values(
    const std::map<std::string, int64_t>& by_name) const {
  std::vector<int64_t> values = default_params();
  for (uint32_t i = 0; i < desc->nparams; ++i)
    if (auto it = by_name.find(desc->params[i].name); it != by_name.end()) values[i] = it->second;
  return values;
}

cct_status AlgorithmEntry::can_use(const cct_comm* comm, const cct_coll_args* args,
                                   const int64_t* params, cct_error* why) const {
  return v1 ? v1->can_use(comm, args, params, why) : desc->can_use(comm, args, params, why);
}

cct_status AlgorithmEntry::prepare(const cct_comm* comm, const int64_t* params, void** plan,
                                   cct_error* err) const {
  return v1 ? v1->prepare(comm, params, plan, err) : desc->prepare(comm, params, plan, err);
}

cct_status AlgorithmEntry::run(void* plan, const cct_coll_args* args, cct_error* err) const {
  return v1 ? v1->run(plan, args, err) : desc->run(plan, args, err);
}

bool AlgorithmEntry::states_cost() const {
  return !v1 && desc->struct_size >= offsetof(cct_algorithm_desc, cost) + sizeof desc->cost &&
         desc->cost != nullptr;
}

cct_status AlgorithmEntry::cost(const cct_comm* comm, const cct_coll_args* args,
                                const int64_t* params, cct_cost* out, cct_error* why) const {
  *out = cct_cost{};
  if (states_cost()) return desc->cost(comm, args, params, out, why);
  std::snprintf(why->message, sizeof why->message, "%s", "the algorithm states no cost shape");
  return CCT_ERR_UNSUPPORTED;
}

void AlgorithmEntry::destroy(void* plan) const {
  if (v1)
    v1->destroy(plan);
  else
    desc->destroy(plan);
}

std::vector<std::string> Registry::default_search_path() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("CCT_PLUGIN_PATH")) {
    std::stringstream ss(env);
    for (std::string dir; std::getline(ss, dir, ':');)
      if (!dir.empty()) dirs.push_back(dir);
  }
  const std::string here = host_library_dir();
  if (!here.empty()) dirs.push_back(here + "/cct");
  return dirs;
}

void Registry::load_default() {
  if (const char* env = std::getenv("CCT_PLUGIN_PATH")) {
    std::stringstream ss(env);
    for (std::string entry; std::getline(ss, entry, ':');) {
      std::error_code ec;
      if (!entry.empty() && !fs::exists(entry, ec))
        warnings_.push_back("CCT_PLUGIN_PATH entry '" + entry + "' does not exist; skipped");
    }
  }
  load_directories(default_search_path());
}

std::string Registry::searched() const {
  std::string text = "searched ";
  for (std::size_t i = 0; i < searched_.size(); ++i) text += (i ? ", " : "") + searched_[i];
  if (searched_.empty()) text += "nothing (no plugin directory exists)";
  const char* env = std::getenv("CCT_PLUGIN_PATH");
  return text + "; CCT_PLUGIN_PATH " + (env ? std::string("= '") + env + "'" : "unset");
}

void Registry::load_directories(const std::vector<std::string>& dirs) {
  std::set<std::string> seen_dirs;
  for (const auto& dir : dirs) {
    std::error_code ec;
    const auto canonical = fs::weakly_canonical(dir, ec).string();
    if (fs::is_regular_file(dir, ec) && seen_dirs.insert(canonical).second) {
      searched_.push_back(dir);
      load_library(dir);
      continue;
    }
    if (!fs::is_directory(dir, ec) || !seen_dirs.insert(canonical).second) continue;
    searched_.push_back(dir);
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const auto name = entry.path().filename().string();
      if (name.rfind("lib", 0) == 0 && entry.path().extension() == ".so")
        files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) load_library(f);
  }
}

const LibraryReport& Registry::load_library(const std::string& path) {
  LibraryReport& report = reports_.emplace_back();
  report.path = path;
  try {
    for (auto& s : elf_section_exports(path, CCT_EXPORT_SECTION))
      if (s.rfind("cct_", 0) == 0) report.exports.push_back(s);
  } catch (const std::exception& e) {
    report.reason = e.what();
    return report;
  }
  unsigned newest_alg = 0, newest_tr = 0;
  const unsigned alg_v = pick_version(report.exports, "algorithms", &newest_alg);
  const unsigned tr_v = pick_version(report.exports, "transport", &newest_tr);
  if (alg_v == 0 && tr_v == 0) {
    const unsigned newest = std::max(newest_alg, newest_tr);
    report.reason = newest ? "built for plugin ABI version " + std::to_string(newest) +
                                 ", this host speaks " + spoken()
                           : "missing symbol: exports none of " + known_symbols() +
                                 " in section '" + CCT_EXPORT_SECTION + "'";
    return report;
  }
  std::shared_ptr<LoadedLibrary> lib;
  try {
    lib = std::make_shared<LoadedLibrary>(path);
  } catch (const std::exception& e) {
    report.reason = std::string("failed to load: ") + e.what();
    return report;
  }
  // A version 1 set or transport has version 2's layout (abi_v1.cpp asserts
  // it); only a version 1 set's entries are read through the adapter.
  std::string why;
  if (alg_v) {
    auto* set = static_cast<const cct_algorithm_set*>(
        lib->exported("cct_algorithms_v" + std::to_string(alg_v)));
    why = check_and_add_algorithms(set, alg_v, lib, report);
  }
  if (why.empty() && tr_v) {
    auto* desc = static_cast<const cct_transport_desc*>(
        lib->exported("cct_transport_v" + std::to_string(tr_v)));
    why = check_and_add_transport(desc, tr_v, path, lib);
  }
  report.reason = why;
  report.loaded = why.empty();
  report.abi_version = report.loaded ? std::max(alg_v, tr_v) : 0;
  if (!report.loaded) {
    // Nothing of a refused library stays registered.
    std::erase_if(algorithms_, [&](const AlgorithmEntry& a) { return a.owner == lib; });
    std::erase_if(transports_, [&](const TransportEntry& t) { return t.owner == lib; });
  }
  return report;
}

// A fault of the set refuses the library; a bad entry is refused alone,
// listed in report.refused_entries.
std::string Registry::check_and_add_algorithms(const cct_algorithm_set* set, unsigned version,
                                               const std::shared_ptr<LoadedLibrary>& lib,
                                               LibraryReport& report) {
  if (set == nullptr) return "cct_algorithms symbol is null";
  const std::size_t size = version == 1 ? abi_v1::kAlgorithmSetSize : sizeof(cct_algorithm_set);
  if (auto e = check_header(set->struct_size, set->abi_version, version, size, "algorithm set");
      !e.empty())
    return e;
  if (set->count > 0 && set->algorithms == nullptr) return "algorithm set has no table";
  for (uint32_t i = 0; i < set->count; ++i) {
    AlgorithmEntry entry{.library = report.path, .owner = lib};
    std::string why = read_algorithm(set->algorithms[i], version, entry);
    if (why.empty()) why = add_algorithm(entry);
    if (!why.empty()) report.refused_entries.push_back(entry_label(entry, i) + ": " + why);
  }
  return "";
}

std::string Registry::add_algorithm(const AlgorithmEntry& entry) {
  if (auto e = check_algorithm(entry); !e.empty()) return e;
  if (const auto* other = find_algorithm(entry.desc->collective, entry.desc->name))
    return "duplicate algorithm name, already provided by " + other->library;
  algorithms_.push_back(entry);
  return "";
}

std::string Registry::check_and_add_transport(const cct_transport_desc* desc, unsigned version,
                                              const std::string& path,
                                              const std::shared_ptr<LoadedLibrary>& lib) {
  if (desc == nullptr) return "cct_transport symbol is null";
  // simulate() came later within version 1: a descriptor without it is
  // still whole (is_simulated() reads it only when struct_size covers it).
  if (auto e = check_header(desc->struct_size, desc->abi_version, version,
                            offsetof(cct_transport_desc, simulate), "transport descriptor");
      !e.empty())
    return e;
  if (!valid_name(desc->name)) return "transport name is not [a-z0-9_]+";
  if (!desc->open || !desc->close || !desc->probe)
    return std::string("transport '") + desc->name + "' lacks probe/open/close";
  if (const auto* other = find_transport(desc->name))
    return std::string("duplicate transport name: ") + desc->name + " is already provided by " +
           other->library;
  transports_.push_back(TransportEntry{desc, path, lib, version});
  return "";
}

const AlgorithmEntry* Registry::find_algorithm(cct_collective c, std::string_view name) const {
  for (const auto& a : algorithms_)
    if (a.desc->collective == c && name == a.desc->name) return &a;
  return nullptr;
}

const AlgorithmEntry* Registry::library_algorithm(cct_collective c) const {
  for (const auto& a : algorithms_)
    if (a.desc->collective == c && (a.desc->required_caps & CCT_CAP_LIBRARY)) return &a;
  return nullptr;
}

const TransportEntry* Registry::find_transport(std::string_view name) const {
  for (const auto& t : transports_)
    if (name == t.desc->name) return &t;
  return nullptr;
}

}  // namespace cct
