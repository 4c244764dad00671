// Under mpirun, ranks that the launcher left unbound (Open MPI binds none
// when oversubscribed) are pinned to a PU each while their shape measures.
//
// Why: the ranks outside the shape sleep while it measures, and Linux then
// often keeps the shape's ranks on one core with the other idle (seen on
// 2 cores, 2 of 4 ranks: both on CPU 0 for the whole shape, every
// exchange a context switch, 64-byte figures of 10 us against 1 us). An
// application of that many ranks would have been bound by mpirun, one
// per core; pinned the same way (Topology::pu_for_rank), the shape
// measures what it would see.
#pragma once

#include <mpi.h>
#include <sched.h>

#include "cct/topology.hpp"

namespace cct::tuner {

class ShapePinning {
 public:
  // shape: the communicator of the shape's ranks. A rank the launcher
  // bound (to fewer than all PUs), or a node with more of the shape's
  // ranks than PUs, is left as it is.
  ShapePinning(const Topology& topo, MPI_Comm shape);
  // Every thread back to the CPUs the process had.
  ~ShapePinning();
  bool pinned() const { return pinned_; }
  ShapePinning(const ShapePinning&) = delete;
  ShapePinning& operator=(const ShapePinning&) = delete;

 private:
  cpu_set_t saved_;
  bool pinned_ = false;
};

}  // namespace cct::tuner
