// The MPI interposer: which MPI datatypes and operators the runtime can
// take as they are.
//
// Only predefined datatypes (C and Fortran) that are one plain number of a
// size and kind cct has (MPI_INT, MPI_DOUBLE, MPI_UINT8_T, MPI_INTEGER,
// MPI_DOUBLE_PRECISION, ...) and the four predefined operators cct has map; everything else
// (derived and pair types, long double, complex, logical and bitwise operators, MAXLOC, user
// operators) is left to the MPI library.
#pragma once

#include <mpi.h>

#include <optional>

#include "cct/abi/common.h"

namespace cct::interposer {

std::optional<cct_datatype> datatype_of(MPI_Datatype type);
std::optional<cct_op> op_of(MPI_Op op);

// Whether the MPI library may answer a reduction with these arguments
// otherwise than the runtime: sums and products of 1-byte types, which
// cct wraps and Open MPI saturates (the `mpi` algorithm refuses them,
// plugins/library/library_call.cpp, so that no answer depends on the
// profile). Asked before any conversion, so by the op's handle and the
// type's size alone: a 1-byte derived type counts too.
bool library_answers_otherwise(MPI_Datatype type, MPI_Op op);

}  // namespace cct::interposer
