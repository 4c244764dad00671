#include "pdbp/placement.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace cct::plugins::pdbp {
namespace {

// The innermost object around `set` that has memory attached (a NUMA
// node's parent in hwloc 2), or the machine.
hwloc_obj_t numa_local(hwloc_topology_t topology, hwloc_const_bitmap_t set) {
  hwloc_obj_t obj = hwloc_get_obj_covering_cpuset(topology, set);
  while (obj != nullptr && obj->memory_arity == 0 && obj->parent != nullptr) obj = obj->parent;
  return obj;
}

}  // namespace

Placement::Placement() {
  const char* debug = std::getenv("CCT_PDBP_DEBUG");
  debug_ = debug != nullptr && std::strcmp(debug, "0") != 0;
  if (hwloc_topology_init(&topology_) != 0) {
    topology_ = nullptr;
    return;
  }
  if (hwloc_topology_load(topology_) != 0) return;
  hwloc_bitmap_t bound = hwloc_bitmap_alloc();
  if (hwloc_get_cpubind(topology_, bound, HWLOC_CPUBIND_THREAD) == 0 &&
      !hwloc_bitmap_iszero(bound)) {
    if (hwloc_obj_t obj = numa_local(topology_, bound); obj != nullptr && obj->cpuset != nullptr)
      cpuset_ = hwloc_bitmap_dup(obj->cpuset);
  }
  hwloc_bitmap_free(bound);
}

Placement::~Placement() {
  if (cpuset_ != nullptr) hwloc_bitmap_free(cpuset_);
  if (topology_ != nullptr) hwloc_topology_destroy(topology_);
}

bool Placement::bind_this_thread() const {
  const bool bound =
      cpuset_ != nullptr && hwloc_set_cpubind(topology_, cpuset_, HWLOC_CPUBIND_THREAD) == 0;
  if (debug_) {
    char set[256] = "";
    if (bound) hwloc_bitmap_list_snprintf(set, sizeof set, cpuset_);
    std::fprintf(stderr, "pdbp: pid %d: pool thread %s%s\n", static_cast<int>(getpid()),
                 bound ? "bound to PUs " : "unbound", set);
  }
  return bound;
}

}  // namespace cct::plugins::pdbp
