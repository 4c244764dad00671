// Correctness checks of one collective call, shared by the tests of every
// algorithm of that collective: each builds distinct data per rank, runs
// the plan once, compares with the reference result, and checks that the
// kGuard elements past the result are untouched.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cct/communicator.hpp"

namespace cct::test {

// Elements past the result that must keep their value.
constexpr std::size_t kGuard = 3;

// Every rank ends with the root's `count` elements.
void check_bcast_call(Communicator& comm, Plan& plan, int root, std::size_t count,
                      cct_datatype dtype, uint32_t tag);

// The root ends with every rank's block in rank order; the other ranks
// pass no receive buffer. In place: the root's block is already in recvbuf.
void check_gather_call(Communicator& comm, Plan& plan, int root, std::size_t count,
                       cct_datatype dtype, bool in_place, uint32_t tag);

// Every rank ends with its block of the root's send buffer, which is left
// as it was; the other ranks pass no send buffer. In place: the root passes
// no receive buffer (CCT_IN_PLACE) and keeps its block where it is.
void check_scatter_call(Communicator& comm, Plan& plan, int root, std::size_t count,
                        cct_datatype dtype, bool in_place, uint32_t tag);

// The root ends with the reduction of every rank's input; the other ranks
// pass no receive buffer. In place: the root's input is in recvbuf.
void check_reduce_call(Communicator& comm, Plan& plan, int root, std::size_t count,
                       cct_datatype dtype, cct_op op, bool in_place, uint32_t tag);

// Every rank ends with the reduction of every rank's input; in place: from
// the receive buffer.
void check_allreduce_call(Communicator& comm, Plan& plan, std::size_t count, cct_datatype dtype,
                          cct_op op, bool in_place, uint32_t tag);

// Every rank ends with every rank's block in rank order; in place: its own
// block is already in recvbuf.
void check_allgather_call(Communicator& comm, Plan& plan, std::size_t count, cct_datatype dtype,
                          bool in_place, uint32_t tag);

// Every rank r ends with block r of every rank's send buffer, in rank
// order; in place: from the receive buffer (CCT_IN_PLACE).
void check_alltoall_call(Communicator& comm, Plan& plan, std::size_t count, cct_datatype dtype,
                         bool in_place, uint32_t tag);

}  // namespace cct::test
