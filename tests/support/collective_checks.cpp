#include "support/collective_checks.hpp"

#include <cstring>
#include <string>

#include "cct/error.hpp"
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
  if (in_place) std::memcpy(recv.data(), send.data(), send.size());
  plan.run(coll_args(CCT_ALLTOALL, in_place ? CCT_IN_PLACE : send.data(), recv.data(), count, dtype,
                     0, tag));
  const std::string diff = compare(recv.data(), want.data(), p * count + kGuard, dtype);
  expect(diff.empty(), "alltoall count " + std::to_string(count) + " " + datatype_name(dtype) +
                           (in_place ? " in place" : "") + ": " + diff);
}

}  // namespace cct::test
