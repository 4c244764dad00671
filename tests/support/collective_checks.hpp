// Correctness checks of one collective call, shared by the tests of every
// algorithm: one check for every collective, driven by its row of the
// table of collectives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

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
  // The vector collectives: rank r's block has counts[r] elements (size()
  // entries). Receive blocks lie one element apart, in rank order on even
  // ranks and in reverse on odd ones, so that displacements are exercised.
  std::vector<std::size_t> counts;
};

// Fills every rank's input with distinct data (fill(), salted by tag),
// prefills its receive buffer with other data, runs the plan once, and
// checks the result against the row's expected pieces computed by the
// reference, the kGuard elements past the result, and that no input was
// written.
void check_call(Communicator& comm, Plan& plan, const CheckedCall& call, uint32_t tag);

// Per-rank counts for the vector collectives on `size` ranks, around
// `base` elements: equal; a ramp from nothing (rank r: r * base); every
// other rank nothing; one rank 100 times the others' base. Each has at
// least one non-empty block when base > 0.
std::vector<std::vector<std::size_t>> count_patterns(int size, std::size_t base);

// The calls every algorithm of collective c is checked with on `size`
// ranks: for each count (the vector collectives: each count pattern of
// it), at the first and the last root, out of place and, when `in_place`,
// in place.
std::vector<CheckedCall> calls_to_check(cct_collective c, int size,
                                        std::initializer_list<std::size_t> counts,
                                        cct_datatype dtype, cct_op op, bool in_place);

// What every algorithm of a data-moving vector collective (allgatherv,
// gatherv, scatterv, alltoallv) is checked with, by its plan's
// collective: blocks around 0, 1, 7, p + 1 and 3p - 1 elements in every
// count pattern, at the first and last root, out of place and in place;
// over 4 MiB in equal blocks (the skewed patterns at that size would take
// minutes on 8 ranks); and one call of 19-element blocks per datatype.
void check_vector_calls(Communicator& comm, Plan& plan);

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
