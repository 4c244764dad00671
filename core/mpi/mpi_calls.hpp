// Each collective as the MPI library's own call (PMPI_*, so that an
// interposer preloaded in the same process never takes it back): the MPI
// side of the table of collectives (cct/collectives.hpp), which core
// cannot hold because libcct never links libmpi.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "cct/abi/algorithm.h"

namespace cct {

// cct's datatypes and operators as MPI's (the same sizes and kinds).
MPI_Datatype mpi_type(cct_datatype t);
MPI_Op mpi_op(cct_op op);

// An array of `size` counts as MPI's ints, in `storage` (kept by the
// caller, per thread, so that a measured call does not allocate); null
// stays null.
const int* as_ints(const std::size_t* values, int size, std::vector<int>& storage);

// Runs the call `args` describes on comm with the library's own
// collective, its counts in elements of `type` (mpi_type(args.dtype), or
// any type of the same signature). Returns the MPI error code.
int call_library(const cct_coll_args& args, MPI_Datatype type, MPI_Comm comm);

}  // namespace cct
