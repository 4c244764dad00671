// CCT_TIMEOUT in the runtime: a wait that gets no progress for the
// timeout gives up with CCT_ERR_TIMEOUT, naming the collective, the
// communicator and the rank it waited for with what that process is doing;
// the communicator then refuses every later call at once. Both kinds of
// wait of the shm transport: p2p (waitall) and a shared flag (wait_u64),
// and an algorithm that polls by itself (pdbp).
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <array>
#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <regex>
#include <thread>

#include "cct/error.hpp"
#include "cct/launcher.hpp"
#include "cct/runtime.hpp"
#include "support/harness.hpp"

namespace {

using cct::test::expect;
using Clock = std::chrono::steady_clock;

constexpr double kTimeout = 1;

// Every rank's pid, to match against the messages.
std::array<pid_t, 2> pids_of(cct::Bootstrap& boot) {
  std::array<pid_t, 2> pids{};
  const pid_t mine = ::getpid();
  boot.allgather(&mine, pids.data(), sizeof mine);
  return pids;
}

// A communicator on the launch's ranks whose transport's waits give up
// after kTimeout, as a session opens it under CCT_TIMEOUT.
std::shared_ptr<cct::Communicator> communicator_on(cct::Bootstrap& boot) {
  static const cct::Topology topo = cct::Topology::discover();
  boot.set_timeout_s(kTimeout);
  auto transport =
      std::make_shared<cct::TransportInstance>(*cct::test::registry().find_transport("shm"), boot);
  return std::make_shared<cct::Communicator>(boot, transport, topo, -1);
}

// One call's arguments for a plan run directly (root 0, tag 1).
cct_coll_args call_args(cct_collective c, const void* send, void* recv, std::size_t count,
                        cct_datatype dtype) {
  return {sizeof(cct_coll_args), CCT_ABI_VERSION, c, send, recv, count, dtype, CCT_SUM, 0, 1};
}

// Runs call, which must fail with CCT_ERR_TIMEOUT after about kTimeout and
// a message matching `want`; returns the message.
std::string expect_timeout(const std::function<void()>& call, const std::string& want) {
  const auto start = Clock::now();
  try {
    call();
  } catch (const cct::Error& e) {
    const double took = std::chrono::duration<double>(Clock::now() - start).count();
    expect(e.status() == CCT_ERR_TIMEOUT, std::string("status is not timeout: ") + e.what());
    expect(took >= kTimeout && took < kTimeout + 10,
           "gave up after " + std::to_string(took) + " s, timeout " + std::to_string(kTimeout));
    expect(std::regex_search(e.what(), std::regex(want)),
           std::string("message '") + e.what() + "' does not match '" + want + "'");
    return e.what();
  }
  expect(false, "the call returned although a rank never joined it");
  return "";
}

}  // namespace

TEST_CASE("CCT_TIMEOUT: a p2p wait names the stopped rank, then the communicator refuses calls",
          "[runtime][timeout]") {
  const cct::LaunchResult result =
      cct::launch_local({.ranks = 2, .timeout_s = 60}, [](cct::Bootstrap& boot) {
        const std::array<pid_t, 2> pids = pids_of(boot);
        auto rt = std::make_unique<cct::Runtime>(
            cct::test::registry(), communicator_on(boot),
            cct::Runtime::Options{.label = "the test's communicator", .timeout_s = kTimeout});
        int32_t in = 1, out = 0;
        rt->allreduce(&in, &out, 1, CCT_INT32, CCT_SUM);  // both ranks in step
        if (boot.rank() == 1) ::raise(SIGSTOP);           // hangs here until killed
        expect_timeout([&] { rt->allreduce(&in, &out, 1, CCT_INT32, CCT_SUM); },
                       "^rank 0: allreduce of 4 B on the test's communicator timed out "
                       "\\(CCT_TIMEOUT=1 s\\): .*no progress for 1 s; waiting for rank 1 \\(pid " +
                           std::to_string(pids[1]) + ", stopped\\)");
        const auto start = Clock::now();
        try {
          rt->barrier();
          expect(false, "a call after the timeout ran");
        } catch (const cct::Error& e) {
          expect(e.status() == CCT_ERR_TIMEOUT &&
                     std::string(e.what()).find("the communicator cannot be used after that") !=
                         std::string::npos,
                 std::string("the call after the timeout failed otherwise: ") + e.what());
        }
        expect(Clock::now() - start < std::chrono::milliseconds(500),
               "the call after the timeout waited instead of failing at once");
        ::kill(pids[1], SIGKILL);
        return 0;
      });
  // Rank 0's checks passed (else the launcher names rank 0); rank 1 was
  // killed by rank 0.
  CHECK_THAT(result.error, Catch::Contains("rank 1") && Catch::Contains("signal 9"));
  CHECK_THAT(result.error, !Catch::Contains("rank 0"));
}

TEST_CASE("CCT_TIMEOUT: a wait on a shared flag names the rank busy elsewhere",
          "[runtime][timeout]") {
  // central_counter waits on a flag in a shared region: its waits know no
  // peer, so the transport names the ranks not waiting in the instance.
  // Rank 1 sleeps in "user code" past the timeout, then arrives: rank 0
  // had arrived before it gave up, so rank 1's barrier completes.
  const cct::LaunchResult result =
      cct::launch_local({.ranks = 2, .timeout_s = 60}, [](cct::Bootstrap& boot) {
        const std::array<pid_t, 2> pids = pids_of(boot);
        const cct::AlgorithmEntry& barrier = cct::test::algorithm(CCT_BARRIER, "central_counter");
        auto comm = communicator_on(boot);
        cct::Plan plan(barrier, *comm, barrier.default_params());
        const cct_coll_args args = call_args(CCT_BARRIER, nullptr, nullptr, 0, CCT_UINT8);
        plan.run(args);  // both ranks in step
        if (boot.rank() == 1) {
          std::this_thread::sleep_for(std::chrono::duration<double>(3 * kTimeout));
          plan.run(args);
          return 0;
        }
        expect_timeout([&] { plan.run(args); },
                       "barrier/central_counter failed: .*no progress for 1 s; waiting for rank 1 "
                       "\\(pid " +
                           std::to_string(pids[1]) + ", sleeping, not waiting here\\)");
        return 0;
      });
  CHECK(result.error == "");
}

TEST_CASE("CCT_TIMEOUT: pdbp's flows, which poll by themselves, give up too",
          "[runtime][timeout]") {
  // Rank 1 sleeps past the timeout: rank 0's flows wait for it to write
  // and to drain. Then rank 1 comes: rank 0's chunks are there to read,
  // but nobody drains its own, so it gives up in turn.
  const cct::LaunchResult result =
      cct::launch_local({.ranks = 2, .timeout_s = 60}, [](cct::Bootstrap& boot) {
        const cct::AlgorithmEntry& pdbp = cct::test::algorithm(CCT_ALLTOALL, "pdbp");
        auto comm = communicator_on(boot);
        cct::Plan plan(pdbp, *comm, pdbp.default_params());
        std::vector<int32_t> in(2 * 1024, boot.rank()), out(in.size());
        const cct_coll_args args = call_args(CCT_ALLTOALL, in.data(), out.data(), 1024, CCT_INT32);
        plan.run(args);  // both ranks in step
        if (boot.rank() == 1) {
          std::this_thread::sleep_for(std::chrono::duration<double>(3 * kTimeout));
          expect_timeout([&] { plan.run(args); },
                         "alltoall/pdbp failed: pdbp: no flow moved for 1 s; waiting for rank 0 "
                         "\\(to drain\\)$");
          return 0;
        }
        expect_timeout(
            [&] { plan.run(args); },
            "alltoall/pdbp failed: pdbp: no flow moved for 1 s; waiting for rank 1 \\(to "
            "drain\\), rank 1 \\(to write\\)$");
        return 0;
      });
  CHECK(result.error == "");
}
