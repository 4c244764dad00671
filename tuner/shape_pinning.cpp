#include "tuner/shape_pinning.hpp"

#include <filesystem>
#include <string>

namespace cct::tuner {

ShapePinning::ShapePinning(const Topology& topo, MPI_Comm shape) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(shape, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local = 0, local_size = 1;
  MPI_Comm_rank(node, &local);
  MPI_Comm_size(node, &local_size);
  MPI_Comm_free(&node);
  if (local_size > topo.pus() || sched_getaffinity(0, sizeof saved_, &saved_) != 0) return;
  if (CPU_COUNT(&saved_) < topo.pus()) return;  // bound by the launcher: its choice stands
  pinned_ = topo.bind_to_pu(topo.pu_for_rank(local, local_size));
}

// hwloc bound every thread of the process; each gets its CPUs back.
ShapePinning::~ShapePinning() {
  if (!pinned_) return;
  std::error_code ignored;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ignored))
    sched_setaffinity(std::stoi(task.path().filename().string()), sizeof saved_, &saved_);
}

}  // namespace cct::tuner
