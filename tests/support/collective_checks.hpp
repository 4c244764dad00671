// Correctness checks of one collective call, shared by the tests of every
// algorithm: one check for every collective, driven by its row of the
// table of collectives.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cct/communicator.hpp"

namespace cct::test {

// Elements past the result that must keep their value.
constexpr std::size_t kGuard = 3;

// One checked call, alike on every rank: the harness makes each rank's
// buffers from its row of the table of collectives (cct/collectives.hpp).
struct CheckedCall {
  cct_collective collective = CCT_BARRIER;
  std::size_t count = 0;
  cct_datatype dtype = CCT_UINT8;
  cct_op op = CCT_SUM;
  int root = 0;
  bool in_place = false;  // the ranks the row allows pass the in-place form
};

// Fills every rank's input with distinct data (fill(), salted by tag),
// prefills its receive buffer with other data, runs the plan once, and
// checks the result against the row's expected pieces computed by the
// reference, the kGuard elements past the result, and that no input was
// written.
void check_call(Communicator& comm, Plan& plan, const CheckedCall& call, uint32_t tag);

// Shorthands for the first eight collectives.
void check_bcast_call(Communicator& comm, Plan& plan, int root, std::size_t count,
                      cct_datatype dtype, uint32_t tag);
void check_gather_call(Communicator& comm, Plan& plan, int root, std::size_t count,
                       cct_datatype dtype, bool in_place, uint32_t tag);
void check_scatter_call(Communicator& comm, Plan& plan, int root, std::size_t count,
                        cct_datatype dtype, bool in_place, uint32_t tag);
void check_reduce_call(Communicator& comm, Plan& plan, int root, std::size_t count,
                       cct_datatype dtype, cct_op op, bool in_place, uint32_t tag);
void check_allreduce_call(Communicator& comm, Plan& plan, std::size_t count, cct_datatype dtype,
                          cct_op op, bool in_place, uint32_t tag);
void check_allgather_call(Communicator& comm, Plan& plan, std::size_t count, cct_datatype dtype,
                          bool in_place, uint32_t tag);
void check_alltoall_call(Communicator& comm, Plan& plan, std::size_t count, cct_datatype dtype,
                         bool in_place, uint32_t tag);

}  // namespace cct::test
