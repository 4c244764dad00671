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

// This thread's last predefined type asked about, and whether it is of one
// byte. A predefined handle is never freed, so it never names another
// type: the same one again is answered without asking MPI_Type_size
// (which, with the call to ask it, made a sum kept on the library cost
// 8.7-11.9 ns over the library's own call at np 1; tools/kept_overhead.py,
// 2026-12-02). initial-exec and constinit, as kept_calls.hpp's. It starts
// as MPI_DATATYPE_NULL, which counts as one byte (one_byte_type), so that
// the check needs no case of its own for it.
struct PredefinedSize {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  bool one_byte = true;
};
[[gnu::tls_model("initial-exec")]] extern constinit thread_local PredefinedSize last_predefined;

// Whether `type` is of one byte, remembered in last_predefined where it
// is predefined: library_answers_otherwise's way when last_predefined is
// another type. MPI_DATATYPE_NULL counts as one byte: not the runtime's.
bool one_byte_type(MPI_Datatype type);

// Whether the MPI library may answer a reduction with these arguments
// otherwise than the runtime: sums and products of 1-byte types, which
// cct wraps and Open MPI saturates (the `mpi` algorithm refuses them,
// plugins/library/library_call.cpp, so that no answer depends on the
// profile). Asked before any conversion, so by the op's handle and the
// type's size alone: a 1-byte derived type counts too. Inline, as every
// reduction kept on the library asks it (kept_untouched in wrappers.cpp).
inline bool library_answers_otherwise(MPI_Datatype type, MPI_Op op) {
  if (op != MPI_SUM && op != MPI_PROD) return false;
  if (type == last_predefined.type) return last_predefined.one_byte;
  return one_byte_type(type);
}

}  // namespace cct::interposer
