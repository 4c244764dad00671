// ccautotune host library: machine topology through hwloc, and the levels of
// a communicator derived from where its ranks are bound.
#include "cct/topology.hpp"

#include <hwloc.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "cct/error.hpp"
#include "fingerprint_hash.hpp"

namespace cct {

namespace {

using Configure = std::function<int(hwloc_topology_t)>;

std::string errno_text(int err) {
  return std::strerror(err);
}

// Ranks take PUs round by round: the first PU of every core, then the second
// of every core, and so on, so that no two ranks share a core (and its
// execution units) before every core has one.
std::vector<int> spread_order(hwloc_topology_t topo) {
  const int npus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  std::vector<int> taken(std::max(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE), 0), 0);
  std::vector<std::pair<int, int>> round_and_pu;
  for (int i = 0; i < npus; ++i) {
    hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, i);
    hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
    round_and_pu.emplace_back(core ? taken[core->logical_index]++ : 0, i);
  }
  std::sort(round_and_pu.begin(), round_and_pu.end());
  std::vector<int> order;
  for (const auto& [round, pu] : round_and_pu) order.push_back(pu);
  return order;
}

// hwloc only accepts synthetic descriptions whose last level is PU; a
// description ending in cores ("pack:2 numa:2 core:8") means one PU per core.
std::string with_pu_level(const std::string& description) {
  const size_t end = description.find_last_not_of(" \t");
  if (end == std::string::npos) return description;
  const size_t start = description.find_last_of(" \t", end) + 1;  // npos + 1 == 0
  std::string type = description.substr(start, end + 1 - start);
  type = type.substr(0, type.find_first_of(":("));
  for (char& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // A bare count ("2 2 4") leaves the type to hwloc, which makes it PUs.
  if (type.empty() || !std::isalpha(static_cast<unsigned char>(type[0])) || type == "pu") {
    return description;
  }
  return description + " pu:1";
}

bool has_cache_attributes(hwloc_obj_type_t type) {
  return hwloc_obj_type_is_cache(type) || type == HWLOC_OBJ_MEMCACHE;
}

// One line per object, depth first. The type name, depth and arities fix the
// shape of the tree; caches add what makes them perform differently. Left
// out on purpose: OS and logical indexes, serial numbers, host names, CPU
// model and frequency (info attributes), and the memory size of NUMA nodes,
// which changes with what the kernel and firmware reserve at boot. Normal and
// memory children only: I/O and Misc objects are devices, not shape. The
// form of the first fingerprint ("v1"), which profiles tuned before the
// stable one carry.
void describe_shape(hwloc_obj_t obj, std::string& out) {
  char line[160];
  std::snprintf(line, sizeof line, "%s d%d a%u m%u", hwloc_obj_type_string(obj->type), obj->depth,
                obj->arity, obj->memory_arity);
  out += line;
  if (has_cache_attributes(obj->type)) {
    const auto& c = obj->attr->cache;
    std::snprintf(line, sizeof line, " size%" PRIu64 " line%u assoc%d type%d", c.size, c.linesize,
                  c.associativity, static_cast<int>(c.type));
    out += line;
  }
  out += '\n';
  for (hwloc_obj_t child = obj->memory_first_child; child; child = child->next_sibling) {
    describe_shape(child, out);
  }
  for (hwloc_obj_t child = obj->first_child; child; child = child->next_sibling) {
    describe_shape(child, out);
  }
}

// The children of obj with caches looked through: a cache's own children
// stand in its place.
void structural_children(hwloc_obj_t obj, std::vector<hwloc_obj_t>& out) {
  for (hwloc_obj_t child = obj->first_child; child; child = child->next_sibling) {
    if (has_cache_attributes(child->type))
      structural_children(child, out);
    else
      out.push_back(child);
  }
}

// The stable form ("v2"): the tree of the machine, its packages, NUMA
// nodes, groups, cores and PUs, without its caches. A hypervisor reports
// caches as it pleases: identical machines of one kind gave three
// fingerprints in v1, and this one reported one 32 MiB L3 on one boot and
// two of 508 MiB on another. Caches stay in the profile's machine summary,
// for people.
void describe_structure(hwloc_obj_t obj, std::string& out) {
  std::vector<hwloc_obj_t> children;
  structural_children(obj, children);
  std::vector<hwloc_obj_t> memory;
  for (hwloc_obj_t m = obj->memory_first_child; m; m = m->next_sibling)
    if (!has_cache_attributes(m->type)) memory.push_back(m);
  char line[96];
  std::snprintf(line, sizeof line, "%s a%zu m%zu\n", hwloc_obj_type_string(obj->type),
                children.size(), memory.size());
  out += line;
  for (hwloc_obj_t m : memory) describe_structure(m, out);
  for (hwloc_obj_t child : children) describe_structure(child, out);
}

std::string format_bytes(uint64_t bytes) {
  if (bytes != 0 && bytes % (1ULL << 20) == 0) return std::to_string(bytes >> 20) + "MiB";
  if (bytes != 0 && bytes % (1ULL << 10) == 0) return std::to_string(bytes >> 10) + "KiB";
  return std::to_string(bytes) + "B";
}

// "l3:2(32MiB)"; the size only where every cache of the type has the same
// (hybrid CPUs have clusters with different L2 sizes).
std::string summary_item(hwloc_topology_t topo, const char* label, hwloc_obj_type_t type) {
  const int n = hwloc_get_nbobjs_by_type(topo, type);
  if (n <= 0) return "";
  std::string item = std::string(label) + ":" + std::to_string(n);
  if (!hwloc_obj_type_is_cache(type)) return item;
  const uint64_t size = hwloc_get_obj_by_type(topo, type, 0)->attr->cache.size;
  for (int i = 1; i < n; ++i) {
    if (hwloc_get_obj_by_type(topo, type, i)->attr->cache.size != size) return item;
  }
  return item + "(" + format_bytes(size) + ")";
}

// In hwloc 2 NUMA nodes are memory children hanging off the tree, not
// ancestors of PUs, so look for the first whose cpuset covers the PU. Where
// several do (DRAM and HBM of one socket) the first is as good as any: they
// cover the same PUs. A CPU-less memory node has an empty cpuset.
hwloc_obj_t numa_of(hwloc_topology_t topo, hwloc_obj_t pu) {
  hwloc_obj_t numa = nullptr;
  while ((numa = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, numa)) != nullptr) {
    if (hwloc_bitmap_isincluded(pu->cpuset, numa->cpuset)) return numa;
  }
  return nullptr;
}

hwloc_obj_t container_of(hwloc_topology_t topo, hwloc_obj_t pu, cct_level_kind kind) {
  switch (kind) {
    case CCT_LEVEL_L2: return hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_L2CACHE, pu);
    case CCT_LEVEL_L3: return hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_L3CACHE, pu);
    case CCT_LEVEL_NUMA: return numa_of(topo, pu);
    case CCT_LEVEL_PACKAGE: return hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu);
    case CCT_LEVEL_NODE: return hwloc_get_root_obj(topo);
  }
  return nullptr;
}

// The logical index of the object of `kind` holding `pu`, or -1 where the
// rank shares nothing at that level. An unbound rank (pu null) shares nothing
// below the node, but it is on the node.
int64_t group_key(hwloc_topology_t topo, hwloc_obj_t pu, cct_level_kind kind) {
  if (pu == nullptr) return kind == CCT_LEVEL_NODE ? 0 : -1;
  hwloc_obj_t container = container_of(topo, pu, kind);
  return container ? static_cast<int64_t>(container->logical_index) : -1;
}

// Groups are numbered in order of their lowest rank (cct_level's contract).
// Keys >= 0 are containers (logical index); a rank with a negative key is
// alone, because it is unbound or its PU has no container of this kind.
LevelPartition partition(cct_level_kind kind, const std::vector<int64_t>& key_of_rank) {
  LevelPartition p{kind, 0, {}};
  std::map<int64_t, int32_t> group_of_key;
  for (size_t r = 0; r < key_of_rank.size(); ++r) {
    const int64_t key = key_of_rank[r] >= 0 ? key_of_rank[r] : -1 - static_cast<int64_t>(r);
    auto [it, fresh] = group_of_key.try_emplace(key, p.groups);
    if (fresh) ++p.groups;
    p.group_of.push_back(it->second);
  }
  return p;
}

// A container key made unique per node (containers of the same logical
// index on two nodes are two groups); at the node level, the node itself.
int64_t key_on_node(int64_t key, cct_level_kind kind, int node) {
  if (kind == CCT_LEVEL_NODE) return node;
  return key < 0 ? key : (static_cast<int64_t>(node) << 32) + key;
}

bool splits(const LevelPartition& p) {
  return p.groups > 1 && p.groups < static_cast<int32_t>(p.group_of.size());
}

// Whether every group of `inner` lies inside one group of `outer`.
bool coarsens(const LevelPartition& outer, const LevelPartition& inner) {
  std::vector<int32_t> outer_of(inner.groups, -1);
  for (std::size_t r = 0; r < inner.group_of.size(); ++r) {
    int32_t& o = outer_of[inner.group_of[r]];
    if (o != -1 && o != outer.group_of[r]) return false;
    o = outer.group_of[r];
  }
  return true;
}

// Levels nest, innermost first: the partitions from the most groups to the
// fewest (in the order of the kinds between equals), each kept where it
// coarsens the last one kept and differs from it. The order of the kinds
// alone does not nest them: hwloc may attach one NUMA node to several
// packages, and on several nodes that NUMA level is the node partition.
std::vector<LevelPartition> nested(std::vector<LevelPartition> candidates) {
  std::stable_sort(
      candidates.begin(), candidates.end(),
      [](const LevelPartition& a, const LevelPartition& b) { return a.groups > b.groups; });
  std::vector<LevelPartition> levels;
  for (LevelPartition& p : candidates)
    if (levels.empty() || (p.group_of != levels.back().group_of && coarsens(p, levels.back())))
      levels.push_back(std::move(p));
  return levels;
}

}  // namespace

struct Topology::Impl {
  // Loads a topology whose source `configure` selects (returning -1 with
  // errno set on failure). `source` names it in error messages; hwloc only
  // says what is wrong with a description or file (on stderr) where the
  // environment variable `verbose_env` is set, so errors point there.
  Impl(const Configure& configure, const std::string& source, const char* verbose_env,
       bool is_this_machine)
      : this_machine(is_this_machine) {
    hwloc_topology_t raw = nullptr;
    if (hwloc_topology_init(&raw) != 0) {
      fail("hwloc cannot initialise a topology", "", CCT_ERR_NO_MEMORY);
    }
    owner.reset(raw);
    // Caches make the L2/L3 levels and the fingerprint: keep every one, also
    // those that add no structure (one L1 per core).
    hwloc_topology_set_cache_types_filter(topo(), HWLOC_TYPE_FILTER_KEEP_ALL);
    const std::string hint =
        verbose_env ? std::string(" (") + verbose_env + "=1 makes hwloc print why)" : "";
    if (configure(topo()) != 0) fail("hwloc cannot parse " + source, hint);
    if (hwloc_topology_load(topo()) != 0) fail("hwloc cannot load " + source, hint);
    pu_order = spread_order(topo());
  }

  [[noreturn]] static void fail(const std::string& what, const std::string& hint,
                                cct_status status = CCT_ERR_INVALID_ARG) {
    const int err = errno;
    throw Error(what + ": " + errno_text(err) + hint, status);
  }

  int pus() const { return hwloc_get_nbobjs_by_type(topo(), HWLOC_OBJ_PU); }

  hwloc_obj_t pu(int index, const std::string& who) const {
    if (index < 0 || index >= pus()) {
      throw Error(who + ": PU " + std::to_string(index) + " does not exist (the topology has " +
                      std::to_string(pus()) + " PUs)",
                  CCT_ERR_INVALID_ARG);
    }
    return hwloc_get_obj_by_type(topo(), HWLOC_OBJ_PU, index);
  }

  hwloc_topology_t topo() const { return owner.get(); }

  std::unique_ptr<hwloc_topology, void (*)(hwloc_topology_t)> owner{nullptr,
                                                                    hwloc_topology_destroy};
  // Synthetic and XML topologies describe PUs that need not exist here, and
  // hwloc "binds" to them without doing anything; hwloc_topology_is_thissystem
  // also catches HWLOC_XMLFILE or HWLOC_SYNTHETIC replacing the real machine.
  bool this_machine;
  std::vector<int> pu_order;  // logical PU indexes in the order ranks take them
};

Topology::Topology(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Topology::Topology(Topology&&) noexcept = default;
Topology& Topology::operator=(Topology&&) noexcept = default;
Topology::~Topology() = default;

Topology Topology::discover() {
  const char* env = std::getenv("CCT_TOPOLOGY");
  if (env == nullptr || *env == '\0') {
    return Topology(std::make_unique<Impl>([](hwloc_topology_t) { return 0; },
                                           "this machine's topology", nullptr, true));
  }
  const std::string spec = env;
  try {
    if (spec.starts_with("synthetic:")) return synthetic(spec.substr(10));
    if (spec.starts_with("xml:")) return from_xml(spec.substr(4));
  } catch (const Error& e) {
    throw Error("CCT_TOPOLOGY: " + std::string(e.what()), e.status());
  }
  throw Error(
      "CCT_TOPOLOGY: expected 'synthetic:<description>' or 'xml:<path>', got '" + spec + "'",
      CCT_ERR_INVALID_ARG);
}

Topology Topology::synthetic(const std::string& description) {
  const std::string full = with_pu_level(description);
  return Topology(std::make_unique<Impl>(
      [&](hwloc_topology_t t) { return hwloc_topology_set_synthetic(t, full.c_str()); },
      "synthetic description '" + description + "'", "HWLOC_SYNTHETIC_VERBOSE", false));
}

Topology Topology::from_xml(const std::string& path) {
  // hwloc only reports a missing file as a failed load; say why here.
  if (std::FILE* f = std::fopen(path.c_str(), "r")) {
    std::fclose(f);
  } else {
    const int err = errno;
    throw Error("cannot read XML topology '" + path + "': " + errno_text(err), CCT_ERR_INVALID_ARG);
  }
  return Topology(std::make_unique<Impl>(
      [&](hwloc_topology_t t) { return hwloc_topology_set_xml(t, path.c_str()); },
      "XML topology '" + path + "'", "HWLOC_XML_VERBOSE", false));
}

int Topology::pus() const {
  return impl_->pus();
}

int Topology::cores() const {
  return hwloc_get_nbobjs_by_type(impl_->topo(), HWLOC_OBJ_CORE);
}

// The version tag lets a deliberate change of the description change
// every fingerprint rather than collide with the old ones.
std::string Topology::fingerprint() const {
  std::string shape = "cct-topology-shape-v2\n";
  describe_structure(hwloc_get_root_obj(impl_->topo()), shape);
  return fingerprint_of(shape);
}

std::string Topology::exact_fingerprint() const {
  std::string shape = "cct-topology-shape-v1\n";
  describe_shape(hwloc_get_root_obj(impl_->topo()), shape);
  return fingerprint_of(shape);
}

std::vector<std::string> Topology::fingerprints() const {
  return {fingerprint(), exact_fingerprint()};
}

std::string Topology::summary() const {
  static constexpr std::pair<const char*, hwloc_obj_type_t> kItems[] = {
      {"pack", HWLOC_OBJ_PACKAGE}, {"numa", HWLOC_OBJ_NUMANODE}, {"l3", HWLOC_OBJ_L3CACHE},
      {"l2", HWLOC_OBJ_L2CACHE},   {"core", HWLOC_OBJ_CORE},     {"pu", HWLOC_OBJ_PU}};
  std::string line;
  for (const auto& [label, type] : kItems) {
    const std::string item = summary_item(impl_->topo(), label, type);
    if (!item.empty()) line += (line.empty() ? "" : " ") + item;
  }
  return line;
}

int Topology::pu_for_rank(int rank, int ranks) const {
  if (rank < 0 || rank >= ranks) {
    throw Error("pu_for_rank: rank " + std::to_string(rank) + " is not in a job of " +
                    std::to_string(ranks) + " ranks",
                CCT_ERR_INVALID_ARG);
  }
  return impl_->pu_order[rank % impl_->pu_order.size()];
}

bool Topology::is_this_machine() const {
  return impl_->this_machine && hwloc_topology_is_thissystem(impl_->topo());
}

bool Topology::bind_to_pu(int pu) const {
  hwloc_obj_t obj = impl_->pu(pu, "bind_to_pu");
  if (!is_this_machine()) return false;
  return hwloc_set_cpubind(impl_->topo(), obj->cpuset, HWLOC_CPUBIND_PROCESS) == 0;
}

int Topology::bound_pu() const {
  if (!is_this_machine()) return -1;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  int pu = -1;
  if (hwloc_get_cpubind(impl_->topo(), set, HWLOC_CPUBIND_PROCESS) == 0 &&
      hwloc_bitmap_weight(set) == 1) {
    hwloc_obj_t obj = hwloc_get_pu_obj_by_os_index(impl_->topo(), hwloc_bitmap_first(set));
    if (obj != nullptr) pu = static_cast<int>(obj->logical_index);
  }
  hwloc_bitmap_free(set);
  return pu;
}

std::vector<LevelPartition> Topology::levels_for(const std::vector<int>& pu_of_rank,
                                                 const std::vector<int>& node_of_rank) const {
  std::vector<hwloc_obj_t> pu_objs;
  for (size_t r = 0; r < pu_of_rank.size(); ++r) {
    const bool unbound = pu_of_rank[r] == -1;
    pu_objs.push_back(unbound ? nullptr
                              : impl_->pu(pu_of_rank[r], "levels_for (rank " + std::to_string(r) +
                                                             ", -1 for unbound)"));
  }
  // Without node_of_rank the node level holds every rank of this machine,
  // so it never splits them; it is walked all the same so that the kinds
  // follow cct_level_kind and its grouping (unbound ranks included) is
  // stated in one place.
  std::vector<LevelPartition> levels;
  for (cct_level_kind kind :
       {CCT_LEVEL_L2, CCT_LEVEL_L3, CCT_LEVEL_NUMA, CCT_LEVEL_PACKAGE, CCT_LEVEL_NODE}) {
    std::vector<int64_t> keys;
    for (std::size_t r = 0; r < pu_objs.size(); ++r)
      keys.push_back(node_of_rank.empty() ? group_key(impl_->topo(), pu_objs[r], kind)
                                          : key_on_node(group_key(impl_->topo(), pu_objs[r], kind),
                                                        kind, node_of_rank.at(r)));
    if (LevelPartition p = partition(kind, keys); splits(p)) levels.push_back(std::move(p));
  }
  return nested(std::move(levels));
}

}  // namespace cct
