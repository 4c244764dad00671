#include "mpi_bootstrap.hpp"

#include <unistd.h>

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

}  // namespace

MpiBootstrap::MpiBootstrap(MPI_Comm comm) {
  check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
  check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
  // Names of shared segments must be the same on every rank and unique to
  // this job: rank 0's pid and a per-process counter, broadcast.
  static int counter = 0;
  long id[2] = {static_cast<long>(getpid()), counter++};
  check(MPI_Bcast(id, 2, MPI_LONG, 0, comm_), "MPI_Bcast");
  key_ = "cct-" + std::to_string(id[0]) + "-mpi" + std::to_string(id[1]);
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
