// ccautotune host library: machine topology (hwloc) and the levels of a
// communicator derived from where its ranks are bound.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cct/abi/algorithm.h"

namespace cct {

// One level of a communicator: a partition of its ranks into groups
// (see cct_level). group_of has one entry per rank.
struct LevelPartition {
  cct_level_kind kind;
  int32_t groups = 0;
  std::vector<int32_t> group_of;
};

class Topology {
 public:
  // The real machine, unless CCT_TOPOLOGY says otherwise:
  //   CCT_TOPOLOGY="synthetic:pack:2 numa:2 l3:2 core:4 pu:2" or
  //   CCT_TOPOLOGY="xml:/path/to/topo.xml".
  static Topology discover();
  static Topology synthetic(const std::string& description);
  static Topology from_xml(const std::string& path);

  Topology(Topology&&) noexcept;
  Topology& operator=(Topology&&) noexcept;
  ~Topology();

  int pus() const;  // processing units (hardware threads)
  int cores() const;
  // A stable hash (16 hex digits) of the machine's structure: packages,
  // NUMA nodes, groups, cores, PUs. Not its caches, which hypervisors
  // report differently on identical machines and from boot to boot; no
  // serial numbers, no host names. What profiles are keyed by.
  std::string fingerprint() const;
  // The form before it, with every cache as reported, which the profiles
  // tuned before the change are keyed by.
  std::string exact_fingerprint() const;
  // The fingerprints a profile of this machine may carry: fingerprint(),
  // then exact_fingerprint().
  std::vector<std::string> fingerprints() const;
  // A one-line human description, e.g. "pack:1 numa:1 l3:1(32MiB) ... pu:2".
  std::string summary() const;

  // The PU (logical index) rank `rank` of a job of `ranks` on this node is
  // bound to: spread over cores first, then over their hardware threads.
  int pu_for_rank(int rank, int ranks) const;
  // Binds the calling process to PU `pu` (logical index). Returns false and
  // leaves the process unbound where the system refuses.
  bool bind_to_pu(int pu) const;
  // The PU (logical index) the calling process is bound to, or -1 when it
  // may run on more than one (or the machine is not this one).
  int bound_pu() const;
  // True when this describes the machine the process runs on (discovered
  // from it, not synthetic or loaded from XML).
  bool is_this_machine() const;

  // The levels of a communicator whose rank r is bound to pu_of_rank[r]
  // (logical PU indices), innermost first, trivial and repeated ones
  // dropped (see cct_level). With node_of_rank (one entry per rank, the
  // same numbering on every rank), ranks on different nodes never share a
  // group, and the node level splits the ranks by node; every node is
  // taken to have this machine's shape.
  std::vector<LevelPartition> levels_for(const std::vector<int>& pu_of_rank,
                                         const std::vector<int>& node_of_rank = {}) const;

 private:
  struct Impl;
  explicit Topology(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cct
