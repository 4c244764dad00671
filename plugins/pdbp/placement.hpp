// Where PDBP's pool threads run: near their rank (ParM's NUMA-aware
// placement, docs/design.md).
//
// A thread inherits the binding of the thread that made it, and a rank is
// usually bound to one PU: left alone, every pool thread of a rank would
// share that single PU. Binding them instead to the cpuset of the NUMA node
// that holds the rank's PU lets them run in parallel while they stay on the
// memory the rank's buffers and shared-memory part live on. A rank that is
// not bound keeps its pool threads unbound too. Binding is an optimisation:
// when hwloc cannot bind, the threads run where the OS puts them. With
// CCT_PDBP_DEBUG=1 in the environment each pool thread prints, on stderr,
// the cpuset it was bound to (or that it runs unbound).
#pragma once

#include <hwloc.h>

namespace cct::plugins::pdbp {

class Placement {
 public:
  // The NUMA-local cpuset around the calling thread's binding (the rank's).
  Placement();
  ~Placement();
  Placement(const Placement&) = delete;
  Placement& operator=(const Placement&) = delete;

  // Binds the calling thread to that cpuset; false (and unbound) on failure.
  bool bind_this_thread() const;

 private:
  hwloc_topology_t topology_ = nullptr;
  hwloc_bitmap_t cpuset_ = nullptr;  // null: nothing to bind to
  bool debug_ = false;
};

}  // namespace cct::plugins::pdbp
