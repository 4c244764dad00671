#include "support/collective_checks.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "cct/error.hpp"
#include "cct/sdk/datatype.hpp"
#include "support/algorithms.hpp"
#include "support/harness.hpp"
#include "support/reference.hpp"

namespace cct::test {

void check_bcast_call(Communicator& comm, Plan& plan, int root, std::size_t count,
                      cct_datatype dtype, uint32_t tag) {
  const int salt = static_cast<int>(tag);
  auto buf = buffer(count + kGuard, dtype);
  const bool is_root = comm.rank() == root;
  fill(buf.data(), count + kGuard, dtype, is_root ? root : comm.size() + comm.rank(), salt);
  auto want = buf;
  fill(want.data(), count, dtype, root, salt);
  plan.run(coll_args(CCT_BCAST, nullptr, buf.data(), count, dtype, root, tag));
  const std::string diff = compare(buf.data(), want.data(), count + kGuard, dtype);
  expect(diff.empty(),
         "bcast root " + std::to_string(root) + " count " + std::to_string(count) + ": " + diff);
}

namespace {

std::string describe(int root, std::size_t count, cct_datatype dtype, bool in_place) {
  return "root " + std::to_string(root) + " count " + std::to_string(count) + " " +
         datatype_name(dtype) + (in_place ? " in place" : "");
}

std::size_t bytes_of(std::size_t count, cct_datatype dtype) {
  return count * sdk::dtype_size(dtype);
}

// What the root's receive buffer of a gather holds before the call:
// garbage, except its own block in the in-place form.
std::vector<unsigned char> gather_receive_buffer(int ranks, int root, std::size_t count,
                                                 cct_datatype dtype, bool in_place, int salt) {
  const std::size_t total = ranks * count + kGuard;
  auto recv = buffer(total, dtype);
  fill(recv.data(), total, dtype, ranks, salt);
  if (in_place) fill(recv.data() + root * bytes_of(count, dtype), count, dtype, root, salt);
  return recv;
}

}  // namespace

void check_gather_call(Communicator& comm, Plan& plan, int root, std::size_t count,
                       cct_datatype dtype, bool in_place, uint32_t tag) {
  const int salt = static_cast<int>(tag);
  auto send = buffer(count, dtype);
  fill(send.data(), count, dtype, comm.rank(), salt);
  if (comm.rank() != root) {
    plan.run(coll_args(CCT_GATHER, send.data(), nullptr, count, dtype, root, tag));
    return;
  }
  auto recv = gather_receive_buffer(comm.size(), root, count, dtype, in_place, salt);
  auto want = recv;
  for (int r = 0; r < comm.size(); ++r)
    fill(want.data() + r * bytes_of(count, dtype), count, dtype, r, salt);
  plan.run(coll_args(CCT_GATHER, in_place ? CCT_IN_PLACE : send.data(), recv.data(), count, dtype,
                     root, tag));
  const std::string diff = compare(recv.data(), want.data(), comm.size() * count + kGuard, dtype);
  expect(diff.empty(), "gather " + describe(root, count, dtype, in_place) + ": " + diff);
}

void check_scatter_call(Communicator& comm, Plan& plan, int root, std::size_t count,
                        cct_datatype dtype, bool in_place, uint32_t tag) {
  const int salt = static_cast<int>(tag);
  const bool is_root = comm.rank() == root;
  auto send = buffer(is_root ? comm.size() * count : 0, dtype);
  for (int r = 0; is_root && r < comm.size(); ++r)
    fill(send.data() + r * bytes_of(count, dtype), count, dtype, r, salt);
  const auto sent = send;
  auto recv = buffer(count + kGuard, dtype);
  fill(recv.data(), count + kGuard, dtype, comm.size(), salt);
  auto want = recv;
  fill(want.data(), count, dtype, comm.rank(), salt);
  void* recvbuf = is_root && in_place ? CCT_IN_PLACE : recv.data();
  plan.run(
      coll_args(CCT_SCATTER, is_root ? send.data() : nullptr, recvbuf, count, dtype, root, tag));
  const std::string label = "scatter " + describe(root, count, dtype, in_place);
  expect(send == sent, label + ": the send buffer was written");
  if (is_root && in_place) return;
  const std::string diff = compare(recv.data(), want.data(), count + kGuard, dtype);
  expect(diff.empty(), label + ": " + diff);
}

// A reduction's input on this rank, its output buffer (with guard
// elements, prefilled) and the output expected where the result lands.
namespace {

struct ReductionBuffers {
  std::vector<unsigned char> send, recv, want;
};

ReductionBuffers reduction_buffers(const Communicator& comm, std::size_t count, cct_datatype dtype,
                                   cct_op op, uint32_t tag) {
  const int salt = static_cast<int>(tag);
  ReductionBuffers b{buffer(count, dtype), buffer(count + kGuard, dtype), {}};
  fill(b.send.data(), count, dtype, comm.rank(), salt);
  fill(b.recv.data(), count + kGuard, dtype, comm.size() + comm.rank(), salt);
  b.want = b.recv;
  expected_reduction(b.want.data(), count, dtype, op, comm.size(), salt);
  return b;
}

}  // namespace

void check_reduce_call(Communicator& comm, Plan& plan, int root, std::size_t count,
                       cct_datatype dtype, cct_op op, bool in_place, uint32_t tag) {
  const bool is_root = comm.rank() == root;
  auto [send, recv, want] = reduction_buffers(comm, count, dtype, op, tag);
  const bool root_in_place = is_root && in_place;
  if (root_in_place) std::copy(send.begin(), send.end(), recv.begin());
  plan.run(coll_args(CCT_REDUCE, root_in_place ? CCT_IN_PLACE : send.data(),
                     is_root ? recv.data() : nullptr, count, dtype, root, tag, op));
  if (!is_root) return;
  const std::string diff = compare(recv.data(), want.data(), count + kGuard, dtype);
  expect(diff.empty(),
         "reduce " + describe(root, count, dtype, in_place) + " " + op_name(op) + ": " + diff);
}

void check_allreduce_call(Communicator& comm, Plan& plan, std::size_t count, cct_datatype dtype,
                          cct_op op, bool in_place, uint32_t tag) {
  auto [send, recv, want] = reduction_buffers(comm, count, dtype, op, tag);
  if (in_place) std::copy(send.begin(), send.end(), recv.begin());
  plan.run(coll_args(CCT_ALLREDUCE, in_place ? CCT_IN_PLACE : send.data(), recv.data(), count,
                     dtype, 0, tag, op));
  const std::string diff = compare(recv.data(), want.data(), count + kGuard, dtype);
  expect(diff.empty(), "allreduce count " + std::to_string(count) + " " + datatype_name(dtype) +
                           " " + op_name(op) + (in_place ? " in place" : "") + ": " + diff);
}

void check_allgather_call(Communicator& comm, Plan& plan, std::size_t count, cct_datatype dtype,
                          bool in_place, uint32_t tag) {
  const int salt = static_cast<int>(tag);
  const std::size_t p = comm.size(), block = bytes_of(count, dtype);
  auto send = buffer(count, dtype);
  fill(send.data(), count, dtype, comm.rank(), salt);
  auto recv = buffer(p * count + kGuard, dtype);
  fill(recv.data(), p * count + kGuard, dtype, comm.size() + comm.rank(), salt);
  auto want = recv;
  for (int r = 0; r < comm.size(); ++r) fill(want.data() + r * block, count, dtype, r, salt);
  if (in_place) std::copy(send.begin(), send.end(), recv.begin() + comm.rank() * block);
  plan.run(coll_args(CCT_ALLGATHER, in_place ? CCT_IN_PLACE : send.data(), recv.data(), count,
                     dtype, 0, tag));
  const std::string diff = compare(recv.data(), want.data(), p * count + kGuard, dtype);
  expect(diff.empty(), "allgather count " + std::to_string(count) + " " + datatype_name(dtype) +
                           (in_place ? " in place" : "") + ": " + diff);
}

namespace {

// The block rank `from` sends to rank `to`: distinct for every pair.
void fill_block(unsigned char* block, std::size_t count, cct_datatype dtype, int salt, int from,
                int to, int ranks) {
  fill(block, count, dtype, from * ranks + to, salt);
}

}  // namespace

void check_alltoall_call(Communicator& comm, Plan& plan, std::size_t count, cct_datatype dtype,
                         bool in_place, uint32_t tag) {
  const int p = comm.size(), me = comm.rank(), salt = static_cast<int>(tag);
  const std::size_t block = buffer(count, dtype).size();
  auto send = buffer(p * count, dtype);
  for (int to = 0; to < p; ++to)
    fill_block(send.data() + to * block, count, dtype, salt, me, to, p);
  auto recv = buffer(p * count + kGuard, dtype);
  fill(recv.data(), p * count + kGuard, dtype, -1 - me, salt);
  auto want = recv;
  for (int from = 0; from < p; ++from)
    fill_block(want.data() + from * block, count, dtype, salt, from, me, p);
  if (in_place) std::copy(send.begin(), send.end(), recv.begin());
  plan.run(coll_args(CCT_ALLTOALL, in_place ? CCT_IN_PLACE : send.data(), recv.data(), count, dtype,
                     0, tag));
  const std::string diff = compare(recv.data(), want.data(), p * count + kGuard, dtype);
  expect(diff.empty(), "alltoall count " + std::to_string(count) + " " + datatype_name(dtype) +
                           (in_place ? " in place" : "") + ": " + diff);
}

}  // namespace cct::test
