// launch_local / launch_local_exec: the bootstrap the ranks get (allgather,
// barrier, C view), and failures reported with the rank and the cause,
// with nothing left in /dev/shm.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "cct/launcher.hpp"
#include "shm_entries.hpp"
#include "support/harness.hpp"

namespace {

using cct::test::expect;

cct::LaunchResult launch(int ranks, const std::function<int(cct::Bootstrap&)>& body,
                         double timeout_s = 60) {
  cct::LaunchResult result = cct::launch_local({.ranks = ranks, .timeout_s = timeout_s}, body);
  CHECK(cct::test::shm_entries_of_this_process().empty());
  return result;
}

unsigned char pattern(int rank, std::size_t i, std::size_t bytes) {
  return static_cast<unsigned char>(rank * 29 + i * 7 + bytes);
}

// Allgathers `bytes` from every rank and checks what came back.
void check_allgather(cct::Bootstrap& boot, std::size_t bytes) {
  std::vector<unsigned char> send(bytes), recv(bytes * boot.size());
  for (std::size_t i = 0; i < bytes; ++i) send[i] = pattern(boot.rank(), i, bytes);
  boot.allgather(send.data(), recv.data(), bytes);
  for (int r = 0; r < boot.size(); ++r)
    for (std::size_t i = 0; i < bytes; ++i)
      if (recv[r * bytes + i] != pattern(r, i, bytes))
        throw std::runtime_error("allgather of " + std::to_string(bytes) +
                                 " bytes: wrong byte from rank " + std::to_string(r));
}

// The transports' view: the trampolines reach the same allgather.
void check_c_view(cct::Bootstrap& boot) {
  const cct_bootstrap* view = boot.c_view();
  expect(view->rank == boot.rank() && view->size == boot.size(), "c_view rank/size");
  expect(view->node == 0 && view->nodes == 1, "c_view node/nodes");
  expect(boot.job_key() == view->job_key, "c_view job key");
  int mine = 100 + boot.rank();
  std::vector<int> all(boot.size());
  expect(view->allgather(view->ctx, &mine, all.data(), sizeof mine) == CCT_OK, "c allgather");
  for (int r = 0; r < boot.size(); ++r) expect(all[r] == 100 + r, "c allgather contents");
  expect(view->barrier(view->ctx) == CCT_OK, "c barrier");
}

int exercise_bootstrap(cct::Bootstrap& boot) {
  std::string prefix = "cct-" + std::to_string(::getppid()) + "-";
  expect(boot.job_key().starts_with(prefix), "job key " + boot.job_key());
  for (std::size_t bytes : {0, 1, 7, 4096, 100003}) check_allgather(boot, bytes);
  for (int i = 0; i < 3; ++i) boot.barrier();
  check_c_view(boot);
  return 0;
}

}  // namespace

TEST_CASE("launch_local: allgather and barrier on 1 to 8 ranks", "[launcher]") {
  for (int n = 1; n <= 8; ++n) {
    cct::LaunchResult result = launch(n, exercise_bootstrap);
    INFO(n << " ranks: " << result.error);
    CHECK(result.ok);
    CHECK(result.error.empty());
  }
}

TEST_CASE("launch_local: each rank gets its own rank and the same job key", "[launcher]") {
  cct::LaunchResult result = launch(5, [](cct::Bootstrap& boot) {
    char key[64] = {};
    std::snprintf(key, sizeof key, "%s", boot.job_key().c_str());
    std::vector<char> keys(sizeof key * boot.size());
    boot.allgather(key, keys.data(), sizeof key);
    std::vector<int> ranks(boot.size());
    int mine = boot.rank();
    boot.allgather(&mine, ranks.data(), sizeof mine);
    for (int r = 0; r < boot.size(); ++r) {
      expect(ranks[r] == r, "rank order");
      expect(std::strcmp(&keys[r * sizeof key], key) == 0, "same job key");
    }
    return 0;
  });
  INFO(result.error);
  CHECK(result.ok);
}

TEST_CASE("launch_local: a rank that throws is named", "[launcher]") {
  cct::LaunchResult result = launch(4, [](cct::Bootstrap& boot) {
    if (boot.rank() == 2) throw std::runtime_error("deliberate failure");
    boot.barrier();
    return 0;
  });
  CHECK_FALSE(result.ok);
  CHECK(result.error == "rank 2 of 4 exited with status 1");
}

TEST_CASE("launch_local: a non-zero exit status is reported", "[launcher]") {
  cct::LaunchResult result = launch(4, [](cct::Bootstrap& boot) {
    if (boot.rank() == 1) return 3;
    boot.barrier();
    return 0;
  });
  CHECK(result.error == "rank 1 of 4 exited with status 3");
}

TEST_CASE("launch_local: a rank killed by a signal is reported", "[launcher]") {
  cct::LaunchResult result = launch(4, [](cct::Bootstrap& boot) {
    boot.barrier();
    if (boot.rank() == 2) ::raise(SIGSEGV);
    boot.barrier();
    return 0;
  });
  CHECK(result.error == "rank 2 of 4 killed by signal 11 (Segmentation fault)");
}

TEST_CASE("launch_local: the timeout kills the ranks still running", "[launcher]") {
  auto start = std::chrono::steady_clock::now();
  cct::LaunchResult result = launch(
      4,
      [](cct::Bootstrap& boot) {
        if (boot.rank() == 0 || boot.rank() == 3) ::pause();
        return 0;
      },
      0.5);
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  CHECK(result.error == "ranks 0,3 of 4 still running after 0.5 s (killed)");
  CHECK(took.count() < 5);
}

TEST_CASE("launch_local: the watchdog's answer stops the job with its reason", "[launcher]") {
  const auto start = std::chrono::steady_clock::now();
  int asked = 0;
  const cct::LaunchResult result = cct::launch_local(
      {.ranks = 2,
       .timeout_s = 60,
       .watchdog =
           [&] {
             ++asked;
             const std::chrono::duration<double> spent = std::chrono::steady_clock::now() - start;
             return spent.count() > 0.3 ? std::string("stuck for a reason") : std::string();
           }},
      [](cct::Bootstrap&) {
        ::pause();
        return 0;
      });
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  CHECK(result.error == "stuck for a reason (killed)");
  CHECK(asked >= 2);
  CHECK(took.count() < 5);
  CHECK(cct::test::shm_entries_of_this_process().empty());
}

TEST_CASE("launch_local: a rank leaving while the others wait in a collective", "[launcher]") {
  cct::LaunchResult result = launch(4, [](cct::Bootstrap& boot) {
    if (boot.rank() != 3) boot.barrier();
    ::usleep(200000);  // the others are in the barrier by then
    return 0;
  });
  CHECK(result.error ==
        "rank 3 of 4 exited with status 0 while ranks 0,1,2 wait in a bootstrap collective");
}

TEST_CASE("launch_local: allgathers of different sizes are refused", "[launcher]") {
  cct::LaunchResult result = launch(2, [](cct::Bootstrap& boot) {
    if (boot.rank() == 1) ::usleep(100000);  // rank 0 contributes first
    std::vector<char> send(4 + boot.rank() * 4), recv(2 * send.size());
    boot.allgather(send.data(), recv.data(), send.size());
    return 0;
  });
  CHECK(result.error == "rank 1 of 2 passed 8 bytes to a bootstrap allgather, rank 0 passed 4");
}

TEST_CASE("launch_local: segments named after the job key are removed", "[launcher]") {
  for (bool crash : {false, true}) {
    cct::LaunchResult result = launch(3, [&](cct::Bootstrap& boot) {
      std::string name = "/" + boot.job_key() + "-leak" + std::to_string(boot.rank());
      int fd = ::shm_open(name.c_str(), O_CREAT | O_RDWR, 0600);
      expect(fd >= 0, "shm_open " + name);
      boot.barrier();
      if (crash && boot.rank() == 1) ::raise(SIGKILL);
      return 0;
    });
    CHECK(result.ok == !crash);
    // launch() checked that nothing named after the job key is left.
  }
}

TEST_CASE("launch_local: bad options", "[launcher]") {
  cct::LaunchResult result = cct::launch_local({.ranks = 0}, [](cct::Bootstrap&) { return 0; });
  CHECK_FALSE(result.ok);
  CHECK(result.error == "a launch needs at least one rank, not 0");
}

// Run by the test below in each rank it execs; does nothing when run alone.
TEST_CASE("launcher exec child", "[.][exec_child]") {
  std::unique_ptr<cct::Bootstrap> boot = cct::bootstrap_from_environment();
  if (boot == nullptr) return;
  REQUIRE(exercise_bootstrap(*boot) == 0);
}

TEST_CASE("launch_local_exec: exec'ed ranks join through the environment", "[launcher]") {
  if (std::getenv("CCT_BOOTSTRAP_FD") == nullptr)
    CHECK(cct::bootstrap_from_environment() == nullptr);
  std::string self = std::filesystem::read_symlink("/proc/self/exe");
  cct::LaunchResult result =
      cct::launch_local_exec({.ranks = 3, .timeout_s = 60},
                             {self, "[exec_child]", "--warn", "NoTests", "--out", "/dev/null"});
  INFO(result.error);
  CHECK(result.ok);
  result = cct::launch_local_exec({.ranks = 2, .timeout_s = 60}, {"/nonexistent/program"});
  CHECK_THAT(result.error, Catch::Matches("rank [01] of 2 exited with status 127"));
  CHECK(cct::test::shm_entries_of_this_process().empty());
}
