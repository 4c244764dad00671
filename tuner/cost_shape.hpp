// ccautotune tuner: asking an algorithm its cost shape (cct_cost) for a
// communicator shape no job has to open, and naming the shape's spans.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cct/abi/algorithm.h"
#include "cct/registry.hpp"
#include "cct/topology.hpp"

namespace cct::tuner {

// A communicator of np ranks with these levels (innermost first, as
// Topology::levels_for gives them), as a cost question sees it: rank 0, no
// transport (cct_algorithm_desc.cost).
class ShapeComm {
 public:
  ShapeComm(int np, int nodes, std::vector<LevelPartition> levels);
  ShapeComm(const ShapeComm& other) : ShapeComm(other.np_, other.nodes_, other.levels_) {}
  ShapeComm& operator=(const ShapeComm&) = delete;
  const cct_comm* raw() const { return &comm_; }
  int np() const { return np_; }
  int nodes() const { return nodes_; }
  // What each span's messages cross (cct_cost): the kind of the level
  // they stay inside ("l2", "l3", "numa", "package", "node"), and for the
  // outermost span "node" on one node, "network" across nodes.
  std::vector<std::string> span_kinds() const;

 private:
  int np_;
  int nodes_;
  std::vector<LevelPartition> levels_;
  std::vector<cct_level> c_levels_;
  cct_comm comm_{};
};

// The shape of np ranks over `nodes` nodes of this machine's shape, as a
// job places them: np / nodes consecutive ranks on each node (np a
// multiple of nodes), bound on it as a job of that many binds them
// (Topology::pu_for_rank).
ShapeComm job_shape(const Topology& topo, int nodes, int np);

// The cost of `bytes` (the collective's message size, as a results row
// keys it) of collective c by an algorithm with these parameter values on
// this shape, measured with the datatype the tuner measures (measured_dtype);
// nullopt, with the reason in *why, where the algorithm states none or
// cannot say.
std::optional<cct_cost> cost_of_call(const AlgorithmEntry& algorithm,
                                     std::span<const int64_t> params, const ShapeComm& shape,
                                     cct_collective c, int64_t bytes, std::string* why);

}  // namespace cct::tuner
