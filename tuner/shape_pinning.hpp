// Under mpirun, ranks that the launcher left unbound (Open MPI binds none
// when oversubscribed) are pinned to a PU each while their shape measures.
//
// Why: the ranks outside the shape sleep while it measures, and Linux then
// often keeps the shape's ranks on one core with the other idle (seen on
// 2 cores, 2 of 4 ranks: both on CPU 0 for the whole shape, every
// exchange a context switch, 64-byte figures of 10 us against 1 us). An
// application of that many ranks would have been bound by mpirun, one
// per core; pinned the same way (Topology::pu_for_rank), the shape
// measures what it would see. The ranks counted are those on one kernel,
// not one node: hosts emulated on one machine share its PUs (pinned per
// node, the two ranks of 2 such hosts shared PU 0, and a 15 us exchange
// measured 50 us).
#pragma once

#include <mpi.h>
#include <sched.h>

#include <vector>

#include "cct/topology.hpp"

namespace cct::tuner {

class ShapePinning {
 public:
  // shape: the communicator of the shape's ranks (collective over it). A
  // rank the launcher bound (to fewer than all PUs), or a machine with
  // more of the shape's ranks than PUs, is left as it is.
  ShapePinning(const Topology& topo, MPI_Comm shape);
  // Every thread back to the CPUs the process had.
  ~ShapePinning();
  // Whether every rank of the shape was pinned, and to which PU each was
  // (-1: not pinned), in the shape's rank order.
  bool all_pinned() const;
  const std::vector<int>& pus() const { return pus_; }
  ShapePinning(const ShapePinning&) = delete;
  ShapePinning& operator=(const ShapePinning&) = delete;

 private:
  cpu_set_t saved_;
  bool pinned_ = false;  // this rank
  std::vector<int> pus_;
};

}  // namespace cct::tuner
