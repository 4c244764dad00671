#include "tuner/shape_pinning.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace cct::tuner {
namespace {

using KernelId = std::array<char, 64>;

// This kernel's boot id, which every process it runs shares, whatever
// namespace it is in; the host's name where it cannot be read.
KernelId kernel_id() {
  KernelId id{};
  std::string text;
  if (std::ifstream file("/proc/sys/kernel/random/boot_id"); !(file >> text)) {
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    int length = 0;
    MPI_Get_processor_name(name, &length);
    text = name;
  }
  text.copy(id.data(), id.size() - 1);
  return id;
}

struct Sharing {
  int index = 0;  // this rank's among them, in shape's order
  int count = 1;
};

// The ranks of shape that run on this rank's kernel, and so share its
// PUs: those of one node, and also those of other "hosts" on the same
// machine (containers, or the emulated hosts of tests/cluster, which
// MPI_COMM_TYPE_SHARED puts apart).
Sharing ranks_on_this_kernel(MPI_Comm shape) {
  int rank = 0, size = 1;
  MPI_Comm_rank(shape, &rank);
  MPI_Comm_size(shape, &size);
  const KernelId mine = kernel_id();
  std::vector<KernelId> all(size);
  MPI_Allgather(mine.data(), mine.size(), MPI_CHAR, all.data(), mine.size(), MPI_CHAR, shape);
  Sharing sharing{0, 0};
  for (int r = 0; r < size; ++r) {
    if (all[r] != mine) continue;
    if (r < rank) ++sharing.index;
    ++sharing.count;
  }
  return sharing;
}

}  // namespace

ShapePinning::ShapePinning(const Topology& topo, MPI_Comm shape) {
  const auto [local, local_size] = ranks_on_this_kernel(shape);
  int pu = -1;
  if (local_size <= topo.pus() && sched_getaffinity(0, sizeof saved_, &saved_) == 0 &&
      CPU_COUNT(&saved_) >= topo.pus()) {  // else bound by the launcher: its choice stands
    pu = topo.pu_for_rank(local, local_size);
    if (!topo.bind_to_pu(pu)) pu = -1;
  }
  pinned_ = pu >= 0;
  int size = 1;
  MPI_Comm_size(shape, &size);
  pus_.resize(size);
  MPI_Allgather(&pu, 1, MPI_INT, pus_.data(), 1, MPI_INT, shape);
}

bool ShapePinning::all_pinned() const {
  return std::find(pus_.begin(), pus_.end(), -1) == pus_.end();
}

// hwloc bound every thread of the process; each gets its CPUs back.
ShapePinning::~ShapePinning() {
  if (!pinned_) return;
  std::error_code ignored;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ignored))
    sched_setaffinity(std::stoi(task.path().filename().string()), sizeof saved_, &saved_);
}

}  // namespace cct::tuner
