#include "support/collective_checks.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "cct/collectives.hpp"
#include "cct/error.hpp"
#include "cct/sdk/datatype.hpp"
#include "support/algorithms.hpp"
#include "support/harness.hpp"
#include "support/reference.hpp"

namespace cct::test {
namespace {

using Bytes = std::vector<unsigned char>;

std::string describe(const CheckedCall& c) {
  const CollectiveInfo& row = collective_info(c.collective);
  std::string text = std::string(row.name) + " count " + std::to_string(c.count);
  if (!c.counts.empty()) {
    text += " counts";
    for (std::size_t n : c.counts) text += " " + std::to_string(n);
  }
  text += std::string(" ") + datatype_name(c.dtype);
  if (row.rooted) text += " root " + std::to_string(c.root);
  if (row.reduction) text += std::string(" ") + op_name(c.op);
  return text + (c.in_place ? " in place" : "");
}

// Whether this rank passes the in-place form of the call.
bool passes_in_place(const CollectiveInfo& row, const CheckedCall& c, int rank) {
  return c.in_place && row.in_place != InPlaceMark::kNone && row.in_place != InPlaceMark::kAlways &&
         (!row.in_place_root_only || rank == c.root);
}

// Rank `rank`'s displacements of blocks of `counts`: one element apart,
// in rank order on even ranks, in reverse on odd ones.
std::vector<std::size_t> displacements(const std::vector<std::size_t>& counts, int rank) {
  std::vector<std::size_t> displs(counts.size());
  std::size_t next = 0;
  for (std::size_t k = 0; k < counts.size(); ++k) {
    const std::size_t r = rank % 2 == 0 ? k : counts.size() - 1 - k;
    displs[r] = next;
    next += counts[r] + 1;
  }
  return displs;
}

// The arrays of every rank's call, kept alive with the calls (moving an
// inner vector keeps its data where it is).
using Arrays = std::vector<std::vector<std::size_t>>;

const std::size_t* kept(Arrays& arrays, std::vector<std::size_t> values) {
  arrays.push_back(std::move(values));
  return arrays.back().data();
}

// alltoallv: rank i sends counts[(2i + j) mod n] elements to rank j, or,
// in place, where what a rank sends and receives must be laid out alike,
// counts[(i + j) mod n].
std::size_t pair_count(const CheckedCall& c, int from, int to) {
  const std::size_t n = c.counts.size();
  const std::size_t spread = c.in_place ? 1 : 2;
  return c.counts[(spread * static_cast<std::size_t>(from) + static_cast<std::size_t>(to)) % n];
}

// Rank r's arrays as its row asks for them: the same counts on every rank
// (allgatherv, reduce_scatter), at the root only with each rank's own
// count (gatherv, scatterv), or a rank's sends and receives (alltoallv).
void add_arrays(const CollectiveInfo& row, const CheckedCall& c, int r, cct_coll_args& args,
                Arrays& arrays) {
  const int n = static_cast<int>(c.counts.size());
  if (row.arrays_at_root) args.count = c.counts[r];
  if (row.arrays_at_root && r != c.root) return;
  std::vector<std::size_t> sends = c.counts, receives = c.counts;
  if ((row.arrays & kSendCounts) && (row.arrays & kRecvCounts))
    for (int k = 0; k < n; ++k) sends[k] = pair_count(c, r, k), receives[k] = pair_count(c, k, r);
  if (row.arrays & kRecvCounts) {
    args.recvcounts = kept(arrays, receives);
    args.rdispls = kept(arrays, displacements(receives, r));
  }
  if (row.arrays & kSendCounts) {
    args.sendcounts = kept(arrays, sends);
    // alltoallv in place: the input lies at the receive displacements.
    const bool at_receives = c.in_place && (row.arrays & kRecvDispls);
    args.sdispls = at_receives ? args.rdispls : kept(arrays, displacements(sends, r + 1));
  }
}

// Every rank's arguments (the arrays they point to live in `arrays`).
std::vector<cct_coll_args> calls_of(const CheckedCall& c, int size, uint32_t tag, Arrays& arrays) {
  const CollectiveInfo& row = collective_info(c.collective);
  const cct_coll_args args =
      coll_args(c.collective, nullptr, nullptr, c.count, c.dtype, c.root, tag, c.op);
  std::vector<cct_coll_args> calls(size, args);
  if (c.counts.empty()) return calls;
  for (int r = 0; r < size; ++r) add_arrays(row, c, r, calls[r], arrays);
  return calls;
}

// One rank's buffers: its input (fill() of its rank), its receive buffer
// (other data, kGuard elements more), and where the input lies in the
// receive buffer when the call passes it there. An in-place input may
// reach past the result (reduce_scatter): what the call leaves there is
// not specified.
struct RankBuffers {
  Bytes input, recv;
  const void* sendbuf;
  void* recvbuf;
  Region unspecified;
};

RankBuffers buffers_of(const CollectiveInfo& row, const CheckedCall& c, const cct_coll_args& args,
                       int rank, int size, int salt) {
  const Extent extent = row.extent(args, rank, size);
  const bool input_held = (row.in_place == InPlaceMark::kAlways && rank == c.root) ||
                          (row.in_place == InPlaceMark::kSend && passes_in_place(row, c, rank));
  const Region held = input_held ? row.in_place_input(args, rank, size) : Region{};
  const std::size_t held_end = input_held ? held.offset + held.count : 0;
  const std::size_t recv = std::max(extent.recv, held_end);
  RankBuffers b{buffer(input_held ? held.count : extent.send, c.dtype),
                buffer(recv + kGuard, c.dtype),
                nullptr,
                nullptr,
                {extent.recv, recv - extent.recv}};
  fill(b.input.data(), b.input.size() / sdk::dtype_size(c.dtype), c.dtype, rank, salt);
  fill(b.recv.data(), recv + kGuard, c.dtype, size + rank, salt);
  const std::size_t element = sdk::dtype_size(c.dtype);
  if (input_held) std::copy(b.input.begin(), b.input.end(), b.recv.begin() + held.offset * element);
  b.sendbuf = extent.send == 0 ? nullptr : b.input.data();
  b.recvbuf = recv == 0 ? nullptr : b.recv.data();
  if (passes_in_place(row, c, rank)) {
    if (row.in_place == InPlaceMark::kSend) b.sendbuf = CCT_IN_PLACE;
    if (row.in_place == InPlaceMark::kRecv) b.recvbuf = CCT_IN_PLACE;
  }
  return b;
}

}  // namespace

void check_call(Communicator& comm, Plan& plan, const CheckedCall& c, uint32_t tag) {
  const CollectiveInfo& row = collective_info(c.collective);
  const int salt = static_cast<int>(tag), rank = comm.rank(), size = comm.size();
  Arrays arrays;
  const std::vector<cct_coll_args> calls = calls_of(c, size, tag, arrays);
  cct_coll_args args = calls[rank];
  RankBuffers b = buffers_of(row, c, args, rank, size, salt);
  Bytes want = b.recv;
  const std::size_t element = sdk::dtype_size(c.dtype);
  for (const Piece& p : row.expected(calls, rank))
    expected_range(want.data() + p.out * element, p.count, c.dtype, c.op, p.from, p.to, p.in, salt);
  const Bytes input = b.input;
  args.sendbuf = b.sendbuf;
  args.recvbuf = b.recvbuf;
  plan.run(args);
  const std::string label = describe(c);
  expect(b.input == input, label + ": the input was written");
  if (b.recvbuf == CCT_IN_PLACE) return;  // the result stays in the input
  const auto unspecified = b.recv.begin() + b.unspecified.offset * element;
  std::copy(unspecified, unspecified + b.unspecified.count * element,
            want.begin() + b.unspecified.offset * element);
  const std::string diff = compare(b.recv.data(), want.data(), b.recv.size() / element, c.dtype);
  expect(diff.empty(), label + ": " + diff);
}

std::vector<std::vector<std::size_t>> count_patterns(int size, std::size_t base) {
  const auto n = static_cast<std::size_t>(size);
  std::vector<std::vector<std::size_t>> patterns(4, std::vector<std::size_t>(n, base));
  for (std::size_t r = 0; r < n; ++r) {
    patterns[1][r] = r * base;
    patterns[2][r] = r % 2 == 1 || n == 1 ? base : 0;
  }
  patterns[3][n / 2] = 100 * base;
  return patterns;
}

std::vector<CheckedCall> calls_to_check(cct_collective c, int size,
                                        std::initializer_list<std::size_t> counts,
                                        cct_datatype dtype, cct_op op, bool in_place) {
  const CollectiveInfo& row = collective_info(c);
  std::vector<CheckedCall> calls;
  for (std::size_t count : counts)
    for (int root : {0, size - 1}) {
      if (root > 0 && !row.rooted) break;
      for (bool place : {false, true}) {
        if (place && !in_place) break;
        if (!row.vector()) {
          calls.push_back({c, count, dtype, op, root, place, {}});
          continue;
        }
        for (std::vector<std::size_t>& counts : count_patterns(size, count))
          calls.push_back({c, 0, dtype, op, root, place, std::move(counts)});
      }
    }
  return calls;
}

void check_vector_calls(Communicator& comm, Plan& plan) {
  constexpr std::size_t kLargeBlock = (4 << 20) / 8 / 8 + 1;
  constexpr cct_datatype kTypes[] = {CCT_INT8,   CCT_INT16,  CCT_INT32,  CCT_INT64, CCT_UINT8,
                                     CCT_UINT16, CCT_UINT32, CCT_UINT64, CCT_FLOAT, CCT_DOUBLE};
  const cct_collective c = plan.algorithm().desc->collective;
  const int size = comm.size();
  const std::size_t p = static_cast<std::size_t>(size);
  uint32_t tag = 1;
  for (const CheckedCall& call :
       calls_to_check(c, size, {0, 1, 7, p + 1, 3 * p - 1}, CCT_INT32, CCT_SUM, true))
    check_call(comm, plan, call, tag++);
  check_call(comm, plan, calls_to_check(c, size, {kLargeBlock}, CCT_DOUBLE, CCT_SUM, false).front(),
             tag++);
  for (cct_datatype dtype : kTypes) {
    const bool in_place = tag % 2 == 0;
    check_call(comm, plan, calls_to_check(c, size, {19}, dtype, CCT_SUM, in_place).back(), tag++);
  }
}

void check_bcast_call(Communicator& comm, Plan& plan, int root, std::size_t count,
                      cct_datatype dtype, uint32_t tag) {
  check_call(comm, plan, {CCT_BCAST, count, dtype, CCT_SUM, root, false}, tag);
}

void check_gather_call(Communicator& comm, Plan& plan, int root, std::size_t count,
                       cct_datatype dtype, bool in_place, uint32_t tag) {
  check_call(comm, plan, {CCT_GATHER, count, dtype, CCT_SUM, root, in_place}, tag);
}

void check_scatter_call(Communicator& comm, Plan& plan, int root, std::size_t count,
                        cct_datatype dtype, bool in_place, uint32_t tag) {
  check_call(comm, plan, {CCT_SCATTER, count, dtype, CCT_SUM, root, in_place}, tag);
}

void check_reduce_call(Communicator& comm, Plan& plan, int root, std::size_t count,
                       cct_datatype dtype, cct_op op, bool in_place, uint32_t tag) {
  check_call(comm, plan, {CCT_REDUCE, count, dtype, op, root, in_place}, tag);
}

void check_allreduce_call(Communicator& comm, Plan& plan, std::size_t count, cct_datatype dtype,
                          cct_op op, bool in_place, uint32_t tag) {
  check_call(comm, plan, {CCT_ALLREDUCE, count, dtype, op, 0, in_place}, tag);
}

void check_allgather_call(Communicator& comm, Plan& plan, std::size_t count, cct_datatype dtype,
                          bool in_place, uint32_t tag) {
  check_call(comm, plan, {CCT_ALLGATHER, count, dtype, CCT_SUM, 0, in_place}, tag);
}

void check_alltoall_call(Communicator& comm, Plan& plan, std::size_t count, cct_datatype dtype,
                         bool in_place, uint32_t tag) {
  check_call(comm, plan, {CCT_ALLTOALL, count, dtype, CCT_SUM, 0, in_place}, tag);
}

}  // namespace cct::test
