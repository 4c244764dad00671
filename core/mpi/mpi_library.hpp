// The MPI library's own collectives over an MPI communicator, as the
// cct_library the `mpi` algorithm runs (plugins/library): the library's
// choice as one more candidate beside the algorithms.
#pragma once

#include <mpi.h>

#include <string>

#include "cct/abi/algorithm.h"

namespace cct {

class MpiLibrary {
 public:
  // comm: the communicator the calls run on (kept, not duplicated: it must
  // outlive this object).
  explicit MpiLibrary(MPI_Comm comm);
  MpiLibrary(const MpiLibrary&) = delete;
  MpiLibrary& operator=(const MpiLibrary&) = delete;

  const cct_library* raw() const { return &library_; }

 private:
  static cct_status run(void* ctx, const cct_coll_args* args, cct_error* err);

  MPI_Comm comm_;
  std::string name_;
  cct_library library_{};
};

}  // namespace cct
