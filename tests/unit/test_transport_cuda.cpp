// The cuda transport plugin (transports/cuda): in the registry where the
// build found a CUDA toolkit, absent elsewhere. Without a GPU its probe
// refuses with the reason, and opening it over shm fails on every rank with
// that reason: nothing crashes, nothing is printed. With a GPU (skipped
// elsewhere, with the reason): opened over shm on 2 ranks sharing the
// device, messages between device and host buffers in every pairing, and
// its device table's copies and reductions, through the C ABI.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cct/communicator.hpp"
#include "cct/device/cuda_devices.hpp"
#include "cct/error.hpp"
#include "cct/launcher.hpp"
#include "support/device_harness.hpp"
#include "support/gpu.hpp"
#include "support/harness.hpp"

namespace {

using cct::test::expect;

const cct::TransportEntry& entry(const char* name) {
  const cct::TransportEntry* found = cct::test::registry().find_transport(name);
  if (found == nullptr) throw std::runtime_error(std::string("no transport ") + name);
  return *found;
}

std::string on_ranks(int n, const std::function<void(cct::Bootstrap&)>& body) {
  return cct::launch_local({.ranks = n, .timeout_s = 120},
                           [&](cct::Bootstrap& boot) {
                             body(boot);
                             return 0;
                           })
      .error;
}

void ok(cct_status status, const cct_error& err, const char* what) {
  expect(status == CCT_OK, std::string(what) + ": " + err.message);
}

// Over shm on 2 ranks: each pairing of memory kinds for a message of
// several chunks and a tail, then a device reduction of what arrived.
void exchange_and_reduce(const cct::TransportEntry& device_transport) {
  REQUIRE(
      on_ranks(2, [&](cct::Bootstrap& boot) {
        auto shm = std::make_shared<cct::TransportInstance>(entry("shm"), boot);
        cct::TransportInstance opened(device_transport, boot, shm);
        cct_transport_instance* t = opened.raw();
        const cct_device_ops& dev = *t->device;
        cct_error err{};
        constexpr std::size_t kCount = (3 << 20) / 4 + 5;  // several chunks, and a tail
        constexpr std::size_t kBytes = kCount * 4;
        std::vector<int32_t> mine(kCount), theirs(kCount), got(kCount);
        for (std::size_t i = 0; i < kCount; ++i) {
          mine[i] = static_cast<int32_t>(i * 7 + boot.rank());
          theirs[i] = static_cast<int32_t>(i * 7 + 1 - boot.rank());
        }
        void* send = nullptr;
        void* recv = nullptr;
        ok(dev.alloc(t, kBytes, &send, &err), err, "alloc");
        ok(dev.alloc(t, kBytes, &recv, &err), err, "alloc");
        ok(dev.copy(t, send, mine.data(), kBytes, CCT_COPY_HOST_TO_DEVICE, &err), err, "copy");
        ok(dev.synchronize(t, &err), err, "synchronize");
        const int peer = 1 - boot.rank();
        // Every pairing of kinds: device -> device, host -> device,
        // device -> host, host -> host.
        for (int mix = 0; mix < 4; ++mix) {
          const bool send_on_device = (mix & 1) == 0;
          const bool recv_on_device = (mix & 2) == 0;
          std::vector<int32_t> host_in(kCount, -1);
          if (recv_on_device) {
            ok(dev.copy(t, recv, host_in.data(), kBytes, CCT_COPY_HOST_TO_DEVICE, &err), err,
               "copy");
            ok(dev.synchronize(t, &err), err, "synchronize");
          }
          cct_request reqs[2];
          ok(t->p2p->irecv(t, recv_on_device ? recv : host_in.data(), kBytes, peer, mix, &reqs[0]),
             t->last_error, "irecv");
          ok(t->p2p->isend(t, send_on_device ? send : mine.data(), kBytes, peer, mix, &reqs[1]),
             t->last_error, "isend");
          ok(t->p2p->waitall(t, reqs, 2), t->last_error, "waitall");
          if (recv_on_device) {
            ok(dev.copy(t, host_in.data(), recv, kBytes, CCT_COPY_DEVICE_TO_HOST, &err), err,
               "copy");
            ok(dev.synchronize(t, &err), err, "synchronize");
          }
          expect(host_in == theirs, "mix " + std::to_string(mix) + ": wrong bytes");
        }
        // recv holds the peer's values: add them to this rank's own.
        ok(dev.reduce_local(t, recv, send, kCount, CCT_INT32, CCT_SUM, &err), err, "reduce");
        ok(dev.copy(t, got.data(), recv, kBytes, CCT_COPY_DEVICE_TO_HOST, &err), err, "copy");
        ok(dev.synchronize(t, &err), err, "synchronize");
        for (std::size_t i = 0; i < kCount; ++i)
          expect(got[i] == static_cast<int32_t>(14 * i + 1), "sum at " + std::to_string(i));
        dev.free(t, send);
        dev.free(t, recv);
      }) == "");
}

}  // namespace

TEST_CASE("cuda transport: built with CUDA only, and refusing without a GPU, saying why",
          "[device]") {
  const cct::TransportEntry* cuda = cct::test::registry().find_transport("cuda");
  if (!CCT_HAVE_CUDA) {
    CHECK(cuda == nullptr);
    return;
  }
  REQUIRE(cuda != nullptr);
  CHECK(cuda->desc->capabilities == (CCT_CAP_P2P | CCT_CAP_DEVICE));
  cct_bootstrap alone{.struct_size = sizeof(cct_bootstrap),
                      .abi_version = CCT_ABI_VERSION,
                      .rank = 0,
                      .size = 1,
                      .node = 0,
                      .nodes = 1,
                      .job_key = "cct-probe"};
  // Without a GPU that is the reason; with one, the probe passes (ccautotune
  // probes before it opens the host transport) and opening refuses without
  // the host transport.
  const std::string why = cct::device::cuda_absent_before_init();
  cct_error err{};
  if (why.empty()) {
    CHECK(cuda->desc->probe(&alone, &err) == CCT_OK);
    cct_transport_instance* opened = nullptr;
    CHECK(cuda->desc->open(&alone, &opened, &err) == CCT_ERR_UNSUPPORTED);
    CHECK_THAT(err.message, Catch::Contains("no host transport under it (cct_bootstrap.host)"));
    return;  // opened on the GPU below
  }
  CHECK(cuda->desc->probe(&alone, &err) == CCT_ERR_UNSUPPORTED);
  CHECK_THAT(err.message, Catch::Contains(why));
  REQUIRE(on_ranks(2, [&](cct::Bootstrap& boot) {
            auto shm = std::make_shared<cct::TransportInstance>(entry("shm"), boot);
            try {
              cct::TransportInstance opened(*cuda, boot, shm);
              expect(false, "opened without a GPU");
            } catch (const cct::Error& e) {
              const std::string said = e.what();
              expect(said.find("transport 'cuda' cannot serve this job") != std::string::npos &&
                         said.find(why) != std::string::npos,
                     "reason: " + said);
            }
          }) == "");
}

TEST_CASE(
    "device transport on host memory: p2p between device and host buffers, device copies "
    "and reductions",
    "[device]") {
  exchange_and_reduce(cct::test::host_device_transport());
}

TEST_CASE("cuda transport: p2p between device and host buffers, device copies and reductions (GPU)",
          "[device][gpu]") {
  if (!cct::test::skip_without_gpu()) exchange_and_reduce(entry("cuda"));
}

TEST_CASE(
    "device transport: ranks that disagree on CCT_CUDA_CHUNK or CCT_CUDA_IPC, or a bad one, fail "
    "together",
    "[device]") {
  const cct::TransportEntry& device = cct::test::host_device_transport();
  struct Case {
    const char* variable;
    const char* on_rank0;
    const char* on_rank1;
    const char* want;
  };
  const Case cases[] = {
      {"CCT_CUDA_CHUNK", "1024", "2048",
       "CCT_CUDA_CHUNK differs between ranks: 1024 on rank 0, 2048 on rank 1"},
      {"CCT_CUDA_CHUNK", "1024", "abc", "rank 1: CCT_CUDA_CHUNK=abc: not an integer >= 1"},
      {"CCT_CUDA_IPC", "on", "off",
       "CCT_CUDA_IPC differs between ranks: on on rank 0, off on "
       "rank 1"},
      {"CCT_CUDA_IPC", "off", "yes", "rank 1: CCT_CUDA_IPC=yes: not on or off"},
  };
  for (const Case& c : cases) {
    INFO("rank 1 has " << c.variable << "=" << c.on_rank1);
    REQUIRE(on_ranks(2, [&](cct::Bootstrap& boot) {
              ::setenv(c.variable, boot.rank() == 0 ? c.on_rank0 : c.on_rank1, 1);
              auto shm = std::make_shared<cct::TransportInstance>(entry("shm"), boot);
              try {
                cct::TransportInstance opened(device, boot, shm);
                expect(false, "opened");
              } catch (const cct::Error& e) {
                expect(std::string(e.what()).find(c.want) != std::string::npos,
                       std::string("reason: ") + e.what());
              }
              ::unsetenv(c.variable);
            }) == "");
  }
}
