// The baseline scatters: every algorithm on 1..8 ranks and with every
// parameter candidate, one plan reused for every root, for counts 0, 1, 7,
// p + 1 and 3p - 1, in the plain and the root's in-place form, and for one
// scatter of at least 4 MiB. Every rank ends with its block and nothing past
// it written; the root's send buffer is left as it was; other ranks pass no
// send buffer.
#include <catch2/catch.hpp>
#include <string>

#include "cct/sdk/datatype.hpp"
#include "support/algorithms.hpp"
#include "support/harness.hpp"
#include "support/reference.hpp"

namespace {

constexpr cct_datatype kTypes[] = {CCT_INT8, CCT_INT32, CCT_DOUBLE, CCT_UINT16};
constexpr std::size_t kGuard = 3;  // elements past the block that must stay as they were
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

void check_scatter(cct::Communicator& comm, cct::Plan& plan, const Call& c) {
  const int salt = static_cast<int>(c.tag);
  const std::size_t block = c.count * cct::sdk::dtype_size(c.dtype);
  const bool is_root = comm.rank() == c.root;
  auto send = cct::test::buffer(is_root ? comm.size() * c.count : 0, c.dtype);
  for (int r = 0; is_root && r < comm.size(); ++r)
    cct::test::fill(send.data() + r * block, c.count, c.dtype, r, salt);
  const auto sent = send;
  auto recv = cct::test::buffer(c.count + kGuard, c.dtype);
  cct::test::fill(recv.data(), c.count + kGuard, c.dtype, comm.size(), salt);
  auto want = recv;
  cct::test::fill(want.data(), c.count, c.dtype, comm.rank(), salt);
  void* recvbuf = is_root && c.in_place ? CCT_IN_PLACE : recv.data();
  plan.run(cct::test::coll_args(CCT_SCATTER, is_root ? send.data() : nullptr, recvbuf, c.count,
                                c.dtype, c.root, c.tag));
  cct::test::expect(send == sent, describe(c) + ": the send buffer was written");
  if (is_root && c.in_place) return;
  const std::string diff = cct::test::compare(recv.data(), want.data(), c.count + kGuard, c.dtype);
  cct::test::expect(diff.empty(), describe(c) + ": " + diff);
}

void check_all(cct::Communicator& comm, cct::Plan& plan) {
  const std::size_t p = comm.size();
  uint32_t tag = 1;
  for (int root = 0; root < comm.size(); ++root) {
    int i = root;
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, p + 1, 3 * p - 1}) {
      const cct_datatype dtype = kTypes[i++ % 4];
      check_scatter(comm, plan, {root, count, dtype, false, tag++});
      check_scatter(comm, plan, {root, count, dtype, true, tag++});
    }
  }
  const std::size_t large = (kLargeBytes / 4 + p - 1) / p;  // CCT_INT32 elements per rank
  check_scatter(comm, plan, {comm.size() - 1, large, CCT_INT32, false, tag});
}

}  // namespace

TEST_CASE("scatter linear", "[scatter][algorithms]") {
  cct::test::sweep(CCT_SCATTER, "linear", check_all);
}

TEST_CASE("scatter binomial", "[scatter][algorithms]") {
  cct::test::sweep(CCT_SCATTER, "binomial", check_all);
}

TEST_CASE("scatter linear_throttled", "[scatter][algorithms]") {
  cct::test::sweep(CCT_SCATTER, "linear_throttled", check_all);
}

TEST_CASE("scatter parameters are validated", "[scatter][algorithms]") {
  CHECK(cct::test::on_ranks(1, [](cct::Communicator& comm) {
          cct::test::expect_refused(comm, CCT_SCATTER, "linear_throttled", {0},
                                    "max_outstanding 0 < 1");
        }) == "");
}
