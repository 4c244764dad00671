#include "mpi_bootstrap.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <vector>

#include "cct/error.hpp"

namespace cct {
namespace {

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw Error(std::string("MPI bootstrap: ") + what + ": " + std::string(text, len),
              CCT_ERR_TRANSPORT);
}

// This rank's node as a key the ranks of one node share: its virtual node,
// or the lowest MPI_COMM_WORLD rank that shares memory with it.
int node_key(MPI_Comm comm, int virtual_nodes) {
  int world_rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (virtual_nodes > 0)
    return static_cast<int>(static_cast<long>(world_rank) * virtual_nodes / world_size);
  MPI_Comm shared;
  check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared),
        "MPI_Comm_split_type");
  int lowest = world_rank;
  check(MPI_Allreduce(&world_rank, &lowest, 1, MPI_INT, MPI_MIN, shared), "MPI_Allreduce");
  MPI_Comm_free(&shared);
  return lowest;
}

}  // namespace

int virtual_nodes_from_environment() {
  const char* text = std::getenv("CCT_VIRTUAL_NODES");
  if (text == nullptr || *text == '\0') return 0;
  char* end = nullptr;
  const long k = std::strtol(text, &end, 10);
  if (*end != '\0' || k < 1 || k > 1 << 20)
    throw Error(std::string("CCT_VIRTUAL_NODES='") + text + "': expected a positive integer",
                CCT_ERR_INVALID_ARG);
  return static_cast<int>(k);
}

MpiBootstrap::MpiBootstrap(MPI_Comm comm) {
  const int virtual_nodes = virtual_nodes_from_environment();  // before anything to undo
  char name[MPI_MAX_OBJECT_NAME] = "";
  int length = 0;
  check(MPI_Comm_get_name(comm, name, &length), "MPI_Comm_get_name");
  check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
  check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
  // Names of shared segments must be the same on every rank and unique to
  // this job: rank 0's pid and a per-process counter, broadcast.
  static std::atomic<int> counter{0};
  long id[2] = {static_cast<long>(getpid()), counter++};
  check(MPI_Bcast(id, 2, MPI_LONG, 0, comm_), "MPI_Bcast");
  key_ = "cct-" + std::to_string(id[0]) + "-mpi" + std::to_string(id[1]);
  find_nodes(virtual_nodes);
  library_ = std::make_unique<MpiLibrary>(comm_);
  // The program's name for the communicator where it gave one (MPI names
  // MPI_COMM_WORLD and MPI_COMM_SELF itself).
  label_ = length > 0 ? std::string(name, length) + " (" + std::to_string(size_) + " ranks)"
                      : Bootstrap::label();
}

void MpiBootstrap::find_nodes(int virtual_nodes) {
  const int key = node_key(comm_, virtual_nodes);
  std::vector<int> keys(size_);
  allgather(&key, keys.data(), sizeof(int));
  std::vector<int> seen;  // node keys in order of their lowest rank
  for (int k : keys)
    if (std::find(seen.begin(), seen.end(), k) == seen.end()) seen.push_back(k);
  node_ = static_cast<int>(std::find(seen.begin(), seen.end(), key) - seen.begin());
  nodes_ = static_cast<int>(seen.size());
}

MpiBootstrap::~MpiBootstrap() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Comm_free(&comm_);
}

void MpiBootstrap::allgather(const void* send, void* recv, std::size_t bytes) {
  check(MPI_Allgather(send, static_cast<int>(bytes), MPI_BYTE, recv, static_cast<int>(bytes),
                      MPI_BYTE, comm_),
        "MPI_Allgather");
}

void MpiBootstrap::barrier() {
  check(MPI_Barrier(comm_), "MPI_Barrier");
}

}  // namespace cct
