#include "support/collective_checks.hpp"

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
  std::string text =
      std::string(row.name) + " count " + std::to_string(c.count) + " " + datatype_name(c.dtype);
  if (row.rooted) text += " root " + std::to_string(c.root);
  if (row.reduction) text += std::string(" ") + op_name(c.op);
  return text + (c.in_place ? " in place" : "");
}

// Whether this rank passes the in-place form of the call.
bool passes_in_place(const CollectiveInfo& row, const CheckedCall& c, int rank) {
  return c.in_place && row.in_place != InPlaceMark::kNone && row.in_place != InPlaceMark::kAlways &&
         (!row.in_place_root_only || rank == c.root);
}

// One rank's buffers: its input (fill() of its rank), its receive buffer
// (other data, kGuard elements more), and where the input lies in the
// receive buffer when the call passes it there.
struct RankBuffers {
  Bytes input, recv;
  const void* sendbuf;
  void* recvbuf;
};

RankBuffers buffers_of(const CollectiveInfo& row, const CheckedCall& c, const cct_coll_args& args,
                       int rank, int size, int salt) {
  const Extent extent = row.extent(args, rank, size);
  const Region held = row.in_place_input(args, rank, size);
  const bool input_held = (row.in_place == InPlaceMark::kAlways && rank == c.root) ||
                          (row.in_place == InPlaceMark::kSend && passes_in_place(row, c, rank));
  RankBuffers b{buffer(input_held ? held.count : extent.send, c.dtype),
                buffer(extent.recv + kGuard, c.dtype), nullptr, nullptr};
  fill(b.input.data(), b.input.size() / sdk::dtype_size(c.dtype), c.dtype, rank, salt);
  fill(b.recv.data(), extent.recv + kGuard, c.dtype, size + rank, salt);
  const std::size_t element = sdk::dtype_size(c.dtype);
  if (input_held) std::copy(b.input.begin(), b.input.end(), b.recv.begin() + held.offset * element);
  b.sendbuf = extent.send == 0 ? nullptr : b.input.data();
  b.recvbuf = extent.recv == 0 ? nullptr : b.recv.data();
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
  cct_coll_args args =
      coll_args(c.collective, nullptr, nullptr, c.count, c.dtype, c.root, tag, c.op);
  const std::vector<cct_coll_args> calls(size, args);
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
  const std::string diff = compare(b.recv.data(), want.data(), b.recv.size() / element, c.dtype);
  expect(diff.empty(), label + ": " + diff);
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
