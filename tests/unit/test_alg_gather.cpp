// The baseline gathers: every algorithm on 1..8 ranks and with every
// parameter candidate, one plan reused for every root, for counts 0, 1, 7,
// p + 1 and 3p - 1, in the plain and the root's in-place form, and for one
// gather of at least 4 MiB. The root ends with every rank's block in rank
// order and nothing past them is written; other ranks pass no receive buffer.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "cct/sdk/datatype.hpp"
#include "support/algorithms.hpp"
#include "support/harness.hpp"
#include "support/reference.hpp"

namespace {

constexpr cct_datatype kTypes[] = {CCT_INT8, CCT_INT32, CCT_DOUBLE, CCT_UINT16};
constexpr std::size_t kGuard = 3;  // elements past the blocks that must stay as they were
constexpr std::size_t kLargeBytes = 4 << 20;

struct Call {
  int root;
  std::size_t count;
  cct_datatype dtype;
  bool in_place;
  uint32_t tag;
};

std::string describe(const Call& c) {
  return "root " + std::to_string(c.root) + " count " + std::to_string(c.count) +
         (c.in_place ? " in place" : "");
}

// What the root's receive buffer holds before the call: garbage, except its
// own block in the in-place form.
std::vector<unsigned char> receive_buffer(const cct::Communicator& comm, const Call& c) {
  const int salt = static_cast<int>(c.tag);
  const std::size_t total = comm.size() * c.count + kGuard;
  auto recv = cct::test::buffer(total, c.dtype);
  cct::test::fill(recv.data(), total, c.dtype, comm.size(), salt);
  const std::size_t block = c.count * cct::sdk::dtype_size(c.dtype);
  if (c.in_place) cct::test::fill(recv.data() + c.root * block, c.count, c.dtype, c.root, salt);
  return recv;
}

void check_gather(cct::Communicator& comm, cct::Plan& plan, const Call& c) {
  const int salt = static_cast<int>(c.tag);
  auto send = cct::test::buffer(c.count, c.dtype);
  cct::test::fill(send.data(), c.count, c.dtype, comm.rank(), salt);
  if (comm.rank() != c.root) {
    plan.run(
        cct::test::coll_args(CCT_GATHER, send.data(), nullptr, c.count, c.dtype, c.root, c.tag));
    return;
  }
  auto recv = receive_buffer(comm, c);
  auto want = recv;
  const std::size_t block = c.count * cct::sdk::dtype_size(c.dtype);
  for (int r = 0; r < comm.size(); ++r)
    cct::test::fill(want.data() + r * block, c.count, c.dtype, r, salt);
  const void* sendbuf = c.in_place ? CCT_IN_PLACE : send.data();
  plan.run(cct::test::coll_args(CCT_GATHER, sendbuf, recv.data(), c.count, c.dtype, c.root, c.tag));
  const std::size_t total = comm.size() * c.count + kGuard;
  const std::string diff = cct::test::compare(recv.data(), want.data(), total, c.dtype);
  cct::test::expect(diff.empty(), describe(c) + ": " + diff);
}

void check_all(cct::Communicator& comm, cct::Plan& plan) {
  const std::size_t p = comm.size();
  uint32_t tag = 1;
  for (int root = 0; root < comm.size(); ++root) {
    int i = root;
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, p + 1, 3 * p - 1}) {
      const cct_datatype dtype = kTypes[i++ % 4];
      check_gather(comm, plan, {root, count, dtype, false, tag++});
      check_gather(comm, plan, {root, count, dtype, true, tag++});
    }
  }
  const std::size_t large = (kLargeBytes / 4 + p - 1) / p;  // CCT_INT32 elements per rank
  check_gather(comm, plan, {comm.size() - 1, large, CCT_INT32, false, tag});
}

}  // namespace

TEST_CASE("gather linear", "[gather][algorithms]") {
  cct::test::sweep(CCT_GATHER, "linear", check_all);
}

TEST_CASE("gather binomial", "[gather][algorithms]") {
  cct::test::sweep(CCT_GATHER, "binomial", check_all);
}

TEST_CASE("gather linear_throttled", "[gather][algorithms]") {
  cct::test::sweep(CCT_GATHER, "linear_throttled", check_all);
}

TEST_CASE("gather parameters are validated", "[gather][algorithms]") {
  CHECK(cct::test::on_ranks(1, [](cct::Communicator& comm) {
          cct::test::expect_refused(comm, CCT_GATHER, "linear_throttled", {0},
                                    "max_outstanding 0 < 1");
        }) == "");
}
