// One runtime call through the MPI interposer's path, for the tuner's
// confirmation (tuner/search.hpp): what a program's MPI call of an
// algorithm pays on the way to it (datatype and count conversion, packing
// checks, the runtime's dispatch) is part of the figure that decides
// whether the algorithm beats the library's own call.
#pragma once

#include "cct/runtime.hpp"

namespace cct::interposer {

// Runs the call `args` describes (buffers, dtype, op, root; counts and
// displacements in elements of dtype) as the interposer runs a program's
// MPI call of it on rt's communicator: as MPI's arguments (the datatype and
// operator of the same kind, counts as int) through calls.hpp. Returns what
// calls.hpp returns: null when the runtime ran it, else why the interposer
// would leave it to the library (and nothing ran).
const char* interposed(Runtime& rt, const cct_coll_args& args);

}  // namespace cct::interposer
