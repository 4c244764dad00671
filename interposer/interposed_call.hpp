// One runtime call through the MPI interposer's path, for the tuner's
// confirmation (tuner/search.hpp) and ccbench --check: what a program's
// MPI call of an algorithm pays on the way to it (datatype and count
// conversion, packing checks, the runtime's dispatch) is part of the
// figure that decides whether the algorithm beats the library's own call.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "cct/runtime.hpp"

namespace cct::interposer {

// A runtime on comm whose rule for every size of its collective is alg
// with these parameter values (no call then agrees on its size first); or,
// given `up_to`, alg for sizes up to it and the collective's built-in
// default above, as a profile that chooses by size has it (where no rank
// knows a call's size alone, every call then agrees on it first, and pays
// for that). comm must outlive it.
std::unique_ptr<Runtime> runtime_of(const Registry& registry, const Communicator& comm,
                                    const AlgorithmEntry& alg, const std::vector<int64_t>& params,
                                    std::optional<int64_t> up_to = std::nullopt);

// Runs the call `args` describes (buffers, dtype, op, root; counts and
// displacements in elements of dtype) as the interposer runs a program's
// MPI call of it on rt's communicator: as MPI's arguments (the datatype and
// operator of the same kind, counts as int) through calls.hpp. Returns what
// calls.hpp returns: null when the runtime ran it, else why the interposer
// would leave it to the library (and nothing ran).
const char* interposed(Runtime& rt, const cct_coll_args& args);

}  // namespace cct::interposer
