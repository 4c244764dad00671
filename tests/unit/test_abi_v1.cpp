// Plugins built for plugin ABI version 1 (tests/plugins/v1_*.c, from the
// frozen headers alone) in a version 2 host: they load through the adapter,
// a version 1 bcast runs correctly on the shm transport, the adapter refuses
// what version 1 cannot express, and a version 1 transport is handed the
// bootstrap it checks for.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <string>

#include "cct/error.hpp"
#include "cct/registry.hpp"
#include "support/algorithms.hpp"
#include "support/collective_checks.hpp"
#include "support/harness.hpp"

namespace {

std::string test_plugin(const std::string& name) {
  // Appended in place: GCC 12 at -O1 warns of a false out-of-bounds copy
  // in a chain of operator+ on a temporary (its bug 105651).
  std::string path = CCT_TEST_PLUGIN_DIR;
  return path.append("/libcct_test_").append(name).append(".so");
}

// The version 1 bcast, registered in the harness's registry.
const cct::AlgorithmEntry& v1_linear() {
  if (cct::test::registry().find_algorithm(CCT_BCAST, "v1_linear") == nullptr)
    cct::test::registry().load_library(test_plugin("v1_linear_bcast"));
  return cct::test::algorithm(CCT_BCAST, "v1_linear");
}

// Every root, counts 0, 1, 7 and 10000 of several element sizes.
void check_every_root(cct::Communicator& comm, cct::Plan& plan) {
  constexpr cct_datatype kTypes[] = {CCT_INT8, CCT_INT32, CCT_DOUBLE, CCT_UINT16};
  uint32_t tag = 0;
  for (int root = 0; root < comm.size(); ++root)
    for (std::size_t count : {0, 1, 7, 10000}) {
      ++tag;
      cct::test::check_bcast_call(comm, plan, root, count, kTypes[tag % 4], tag);
    }
}

// A communicator of one rank, for opening a transport in this process.
class SoloBootstrap final : public cct::Bootstrap {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string job_key() const override { return "cct-test-v1-" + std::to_string(getpid()); }
  void allgather(const void* send, void* recv, std::size_t bytes) override {
    std::memcpy(recv, send, bytes);
  }
  void barrier() override {}
};

}  // namespace

TEST_CASE("a version 1 algorithm library loads through the adapter", "[abi_v1][registry]") {
  cct::Registry reg;
  const cct::LibraryReport& r = reg.load_library(test_plugin("v1_linear_bcast"));
  INFO(r.reason);
  REQUIRE(r.loaded);
  CHECK(r.abi_version == 1);
  CHECK(r.exports == std::vector<std::string>{"cct_algorithms_v1"});
  CHECK(r.refused_entries.empty());
  const cct::AlgorithmEntry* alg = reg.find_algorithm(CCT_BCAST, "v1_linear");
  REQUIRE(alg != nullptr);
  CHECK(alg->v1 != nullptr);
  // The host's version 2 copy of its metadata, the parameter table included.
  CHECK(alg->desc->abi_version == CCT_ABI_VERSION);
  CHECK(alg->desc->required_caps == CCT_CAP_P2P);
  REQUIRE(alg->desc->nparams == 1);
  CHECK(std::string(alg->desc->params[0].name) == "window");
  CHECK(alg->default_params() == std::vector<int64_t>{4});
}

TEST_CASE("a version 1 bcast runs correctly through the host", "[abi_v1]") {
  const cct::AlgorithmEntry& alg = v1_linear();
  for (int n = 1; n <= 5; ++n) {
    INFO(n << " ranks, window 4");
    CHECK(cct::test::on_ranks(n, [&](cct::Communicator& comm) {
            cct::Plan plan(alg, comm, {4});
            check_every_root(comm, plan);
          }) == "");
  }
  for (int64_t window : {1, 16}) {
    INFO("5 ranks, window " << window);
    CHECK(cct::test::on_ranks(5, [&](cct::Communicator& comm) {
            cct::Plan plan(alg, comm, {window});
            check_every_root(comm, plan);
          }) == "");
  }
}

TEST_CASE("the adapter refuses what version 1 cannot express", "[abi_v1]") {
  const cct::AlgorithmEntry& alg = v1_linear();
  CHECK(cct::test::on_ranks(1, [&](cct::Communicator& comm) {
          const std::vector<int64_t> params{4};
          cct::Plan plan(alg, comm, params);
          int32_t buf[1] = {7};
          const cct_coll_args host =
              cct::test::coll_args(CCT_BCAST, nullptr, buf, 1, CCT_INT32, 0, 1);
          cct::test::expect(cct::why_unusable(alg, comm, host, params).empty(),
                            "a call version 1 can express was refused");
          const std::size_t counts[1] = {1};
          cct_coll_args device_send = host, device_recv = host, per_rank = host;
          device_send.sendmem = CCT_MEMORY_DEVICE;
          device_recv.recvmem = CCT_MEMORY_DEVICE;
          per_rank.recvcounts = counts;
          const std::string device_why =
              "built for plugin ABI version 1, which takes buffers in host memory only, not "
              "device memory";
          const std::string counts_why =
              "built for plugin ABI version 1, which has no per-rank counts";
          const std::pair<cct_coll_args, std::string> cases[] = {
              {device_send, device_why}, {device_recv, device_why}, {per_rank, counts_why}};
          for (const auto& [args, why] : cases) {
            cct_error err{};
            cct::test::expect(
                alg.can_use(comm.raw(), &args, params.data(), &err) == CCT_ERR_UNSUPPORTED,
                "can_use did not answer CCT_ERR_UNSUPPORTED for " + why);
            cct::test::expect(cct::why_unusable(alg, comm, args, params) == why,
                              "can_use's reason: " + std::string(err.message));
            cct_status status = CCT_OK;
            std::string message;
            try {
              plan.run(args);
            } catch (const cct::Error& e) {
              status = e.status();
              message = e.what();
            }
            cct::test::expect(status == CCT_ERR_INVALID_ARG && message.ends_with(why),
                              "run: " + message);
          }
        }) == "");
}

TEST_CASE("a version 1 transport is probed and opened with a version 1 bootstrap",
          "[abi_v1][registry]") {
  cct::Registry reg;
  const cct::LibraryReport& r = reg.load_library(test_plugin("v1_transport"));
  INFO(r.reason);
  REQUIRE(r.loaded);
  CHECK(r.abi_version == 1);
  CHECK(r.exports == std::vector<std::string>{"cct_transport_v1"});
  const cct::TransportEntry* t = reg.find_transport("v1_only");
  REQUIRE(t != nullptr);
  CHECK(t->abi_version == 1);
  SoloBootstrap boot;
  // What a version 2 bootstrap gets from it: the check the stamp passes.
  cct_error err{};
  CHECK(t->desc->probe(boot.c_view(), &err) == CCT_ERR_ABI);
  CHECK(std::string(err.message) == "v1_only: handed a bootstrap of ABI version 2, " +
                                        std::to_string(sizeof(cct_bootstrap)) + " bytes");
  // The host's path: probe, then open, with the bootstrap stamped version 1.
  const cct::TransportInstance opened(*t, boot);
  CHECK(opened.raw()->size == 1);
}
