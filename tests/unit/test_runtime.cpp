// The runtime: every collective through the dispatcher gives the reference
// result (in place too), plans are prepared once and reused, and the stats
// count what ran.
#include <catch2/catch.hpp>
#include <cstring>
#include <memory>
#include <regex>
#include <sstream>

#include "cct/error.hpp"
#include "cct/runtime.hpp"
#include "support/algorithms.hpp"
#include "support/harness.hpp"
#include "support/reference.hpp"

namespace {

using cct::test::expect;

std::shared_ptr<cct::Communicator> share(cct::Communicator& comm) {
  // The harness owns the communicator; the runtime only borrows it here.
  return std::shared_ptr<cct::Communicator>(&comm, [](cct::Communicator*) {});
}

void check(const std::vector<unsigned char>& got, const std::vector<unsigned char>& want,
           std::size_t count, cct_datatype dtype, const std::string& what) {
  const std::string diff = cct::test::compare(got.data(), want.data(), count, dtype);
  expect(diff.empty(), what + ": " + diff);
}

void allreduce_both_forms(cct::Runtime& rt, std::size_t count) {
  const int n = rt.size();
  auto in = cct::test::buffer(count, CCT_INT32), out = in, want = in;
  cct::test::fill(in.data(), count, CCT_INT32, rt.rank(), 3);
  cct::test::expected_reduction(want.data(), count, CCT_INT32, CCT_SUM, n, 3);
  rt.allreduce(in.data(), out.data(), count, CCT_INT32, CCT_SUM);
  check(out, want, count, CCT_INT32, "allreduce");
  rt.allreduce(CCT_IN_PLACE, in.data(), count, CCT_INT32, CCT_SUM);
  check(in, want, count, CCT_INT32, "allreduce in place");
}

void bcast_every_root(cct::Runtime& rt, std::size_t count) {
  for (int root = 0; root < rt.size(); ++root) {
    auto buf = cct::test::buffer(count, CCT_UINT8), want = buf;
    cct::test::fill(want.data(), count, CCT_UINT8, root, 5);
    if (rt.rank() == root) buf = want;
    rt.bcast(buf.data(), count, CCT_UINT8, root);
    check(buf, want, count, CCT_UINT8, "bcast from " + std::to_string(root));
  }
}

void alltoall_in_place(cct::Runtime& rt, std::size_t count) {
  const int n = rt.size();
  auto buf = cct::test::buffer(count * n, CCT_INT16);
  // Block r of rank s holds fill(s, salt r); after the exchange block s of
  // rank r must hold what rank s sent it.
  for (int r = 0; r < n; ++r)
    cct::test::fill(buf.data() + r * count * 2, count, CCT_INT16, rt.rank(), r);
  rt.alltoall(CCT_IN_PLACE, buf.data(), count, CCT_INT16);
  for (int s = 0; s < n; ++s) {
    auto want = cct::test::buffer(count, CCT_INT16);
    cct::test::fill(want.data(), count, CCT_INT16, s, rt.rank());
    std::vector<unsigned char> got(buf.begin() + s * count * 2, buf.begin() + (s + 1) * count * 2);
    check(got, want, count, CCT_INT16, "alltoall block from " + std::to_string(s));
  }
}

}  // namespace

TEST_CASE("runtime dispatches every collective with correct results", "[runtime]") {
  for (int n : {1, 3, 4}) {
    INFO(n << " ranks");
    CHECK(cct::test::on_ranks(n, [](cct::Communicator& comm) {
            cct::Runtime rt(cct::test::registry(), share(comm), {.stats = true});
            for (std::size_t count : {0, 1, 1000}) {
              allreduce_both_forms(rt, count);
              bcast_every_root(rt, count);
              alltoall_in_place(rt, count);
              rt.barrier();
            }
          }) == "");
  }
}

TEST_CASE("runtime prepares each plan once and counts calls in its stats", "[runtime]") {
  CHECK(cct::test::on_ranks(2, [](cct::Communicator& comm) {
          cct::Runtime rt(cct::test::registry(), share(comm), {.stats = true});
          for (int i = 0; i < 5; ++i) allreduce_both_forms(rt, 10);
          rt.barrier();
          uint64_t allreduce_calls = 0, barrier_calls = 0, plans = 0;
          for (const auto& c : rt.choices()) {
            plans += c->plan != nullptr;
            if (c->algorithm->desc->collective == CCT_ALLREDUCE) allreduce_calls += c->calls;
            if (c->algorithm->desc->collective == CCT_BARRIER) barrier_calls += c->calls;
          }
          expect(allreduce_calls == 10, "allreduce calls " + std::to_string(allreduce_calls));
          expect(barrier_calls == 1, "barrier calls " + std::to_string(barrier_calls));
          expect(plans == 2, "plans prepared: " + std::to_string(plans));
          std::ostringstream table;
          rt.print_stats(table);
          expect(std::regex_search(table.str(), std::regex("\nallreduce +recursive_doubling +10 ")),
                 "stats table:\n" + table.str());
        }) == "");
}

namespace {

// Calls of each algorithm name for collective c, from the runtime's counters.
uint64_t calls_of(const cct::Runtime& rt, cct_collective c, const std::string& name) {
  uint64_t calls = 0;
  for (const auto& choice : rt.choices())
    if (choice->algorithm->desc->collective == c && name == choice->algorithm->desc->name)
      calls += choice->calls;
  return calls;
}

}  // namespace

TEST_CASE("runtime follows CCT_FORCE rules and falls back where a rule cannot run", "[runtime]") {
  const auto force = cct::parse_force(
      "bcast:0-4k:knomial(radix=2);allreduce:0-max:ring;allgather:0-max:recursive_doubling",
      &cct::test::registry());
  CHECK(cct::test::on_ranks(3, [&](cct::Communicator& comm) {
          cct::Selector selector({}, force, cct::test::registry(), "shm", comm.size());
          cct::Runtime rt(cct::test::registry(), share(comm), {.stats = true}, std::move(selector));
          bcast_every_root(rt, 100);   // 100 B: knomial
          bcast_every_root(rt, 8192);  // 8 KiB: past the rule, the default
          bcast_every_root(rt, 100);   // back under the rule: the last selection is not reused
          allreduce_both_forms(rt, 50);
          std::vector<unsigned char> block(4, 1), all(12);
          rt.allgather(block.data(), all.data(), 4, CCT_UINT8);
          expect(calls_of(rt, CCT_BCAST, "knomial") == 6, "knomial bcast calls");
          expect(calls_of(rt, CCT_BCAST, "binomial") == 3, "default bcast calls");
          expect(calls_of(rt, CCT_ALLREDUCE, "ring") == 2, "ring allreduce calls");
          // recursive_doubling allgather needs a power of two: 3 ranks fall back.
          expect(calls_of(rt, CCT_ALLGATHER, "recursive_doubling") == 0, "pow2-only rule ran");
          expect(calls_of(rt, CCT_ALLGATHER, "ring") == 1, "allgather fallback calls");
        }) == "");
}

TEST_CASE("the MPI library's own call is refused outside MPI, with the reason", "[runtime]") {
  const cct::AlgorithmEntry& library = cct::test::algorithm(CCT_BCAST, "mpi");
  CHECK((library.desc->required_caps & CCT_CAP_LIBRARY) != 0);
  const auto force = cct::parse_force("bcast:0-max:mpi", &cct::test::registry());
  CHECK(cct::test::on_ranks(2, [&](cct::Communicator& comm) {
          expect(comm.raw()->library == nullptr, "a library outside MPI");
          expect((comm.capabilities() & CCT_CAP_LIBRARY) == 0, "the library capability granted");
          const cct_coll_args args{sizeof(cct_coll_args),
                                   CCT_ABI_VERSION,
                                   CCT_BCAST,
                                   nullptr,
                                   nullptr,
                                   8,
                                   CCT_UINT8,
                                   CCT_SUM,
                                   0,
                                   0};
          const std::string why = cct::why_unusable(library, comm, args, {});
          expect(why == "needs a collective library (it runs inside MPI programs only)",
                 "reason: " + why);
          cct::Selector selector({}, force, cct::test::registry(), "shm", comm.size());
          cct::Runtime rt(cct::test::registry(), share(comm), {.stats = true}, std::move(selector));
          expect(!rt.keeps_library(
                     cct::test::coll_args(CCT_BCAST, nullptr, nullptr, 8, CCT_UINT8, 0, 0)),
                 "the runtime keeps calls on a library it does not have");
          bcast_every_root(rt, 8);
          expect(calls_of(rt, CCT_BCAST, "mpi") == 0, "the library ran outside MPI");
          expect(calls_of(rt, CCT_BCAST, "binomial") == 2, "default bcast calls");
        }) == "");
}

// A rule whose first choice cannot run a call takes the next of its
// recorded candidates that can, never the built-in default while one can.
TEST_CASE("runtime runs a rule's recorded fallback where its first choice cannot run a call",
          "[runtime]") {
  const auto rule = [](std::string algorithm, std::vector<cct::Fallback> fallbacks) {
    return std::vector<cct::RankBucket>{
        {.sizes = {{.algorithm = std::move(algorithm), .fallbacks = std::move(fallbacks)}}}};
  };
  cct::Profile p;
  // The library outside an MPI program (a profile tuned under MPI, used by
  // a program without it).
  p.rules[CCT_BCAST]["shm"] = rule("mpi", {{.algorithm = "knomial", .params = {{"radix", 4}}}});
  // A power-of-two-only algorithm on 3 ranks, then the library, then bruck.
  p.rules[CCT_ALLGATHER]["shm"] =
      rule("recursive_doubling", {{.algorithm = "mpi"}, {.algorithm = "bruck"}});
  // No candidate can run: the default.
  p.rules[CCT_ALLREDUCE]["shm"] = rule("mpi", {});
  CHECK(cct::test::on_ranks(3, [&](cct::Communicator& comm) {
          cct::Selector selector(p, {}, cct::test::registry(), "shm", comm.size());
          expect(selector.warnings().empty(), "warnings for a valid profile");
          cct::Runtime rt(cct::test::registry(), share(comm), {.stats = true}, std::move(selector));
          bcast_every_root(rt, 100);
          std::vector<unsigned char> block(4, 1), all(12);
          rt.allgather(block.data(), all.data(), 4, CCT_UINT8);
          allreduce_both_forms(rt, 50);
          expect(calls_of(rt, CCT_BCAST, "knomial") == 3, "bcast: its fallback");
          expect(calls_of(rt, CCT_BCAST, "binomial") == 0, "bcast: the default ran");
          expect(calls_of(rt, CCT_ALLGATHER, "bruck") == 1, "allgather: its second fallback");
          expect(calls_of(rt, CCT_ALLGATHER, "ring") == 0, "allgather: the default ran");
          expect(calls_of(rt, CCT_ALLREDUCE, "recursive_doubling") == 2,
                 "allreduce: the default, with no candidate left");
          for (cct_collective c : {CCT_BCAST, CCT_ALLGATHER, CCT_ALLREDUCE})
            expect(!rt.library_for_every_call(c, 0), "the library for every call outside MPI");
        }) == "");
}

TEST_CASE("runtime turns in-place calls into out-of-place ones for algorithms without in-place",
          "[runtime]") {
  auto& reg = cct::test::registry();
  reg.load_library(CCT_TEST_PLUGIN_DIR "/libcct_test_no_in_place.so");
  const auto force =
      cct::parse_force("allreduce:0-max:no_in_place;alltoall:0-max:no_in_place", &reg);
  for (int n : {1, 3}) {
    INFO(n << " ranks");
    CHECK(cct::test::on_ranks(n, [&](cct::Communicator& comm) {
            cct::Selector selector({}, force, reg, "shm", comm.size());
            cct::Runtime rt(reg, share(comm), {.stats = true}, std::move(selector));
            allreduce_both_forms(rt, 33);  // the plugin throws if handed CCT_IN_PLACE
            alltoall_in_place(rt, 5);
            expect(calls_of(rt, CCT_ALLREDUCE, "no_in_place") == 2, "allreduce not forced");
            expect(calls_of(rt, CCT_ALLTOALL, "no_in_place") == 1, "alltoall not forced");
          }) == "");
  }
}

// run_again() runs a call like the last one of its collective on that
// call's selection, with the new call's buffers; any other call as run()
// does, choosing and checking it.
TEST_CASE("runtime runs a call again on its last selection, any other call afresh", "[runtime]") {
  const auto force = cct::parse_force("bcast:0-4k:knomial(radix=2)", &cct::test::registry());
  CHECK(cct::test::on_ranks(3, [&](cct::Communicator& comm) {
          cct::Selector selector({}, force, cct::test::registry(), "shm", comm.size());
          cct::Runtime rt(cct::test::registry(), share(comm), {.stats = true}, std::move(selector));
          const auto bcast = [&](std::size_t count, int root, bool again) {
            auto buf = cct::test::buffer(count, CCT_UINT8), want = buf;
            cct::test::fill(want.data(), count, CCT_UINT8, root, 9);
            if (rt.rank() == root) buf = want;
            const cct_coll_args args =
                cct::test::coll_args(CCT_BCAST, nullptr, buf.data(), count, CCT_UINT8, root, 0);
            again ? rt.run_again(args) : rt.run(args);
            check(buf, want, count, CCT_UINT8, "bcast of " + std::to_string(count));
          };
          bcast(100, 1, false);
          bcast(100, 1, true);   // the same call, other buffers: knomial again
          bcast(8192, 1, true);  // another size: chosen afresh, the default
          bcast(8192, 2, true);  // another root: the same
          expect(calls_of(rt, CCT_BCAST, "knomial") == 2, "knomial bcast calls");
          expect(calls_of(rt, CCT_BCAST, "binomial") == 2, "default bcast calls");
          try {  // another root, outside the communicator: checked as run() checks it
            rt.run_again(cct::test::coll_args(CCT_BCAST, nullptr, nullptr, 0, CCT_UINT8, 3, 0));
            expect(false, "root 3 of 3 ranks run again");
          } catch (const cct::Error& e) {
            expect(std::string(e.what()).find("root 3 is outside 0..2") != std::string::npos,
                   std::string("refused as ") + e.what());
          }
        }) == "");
}

// What a careless C API caller can pass is refused with its reason before
// anything is indexed by it, and costs only that call (values outside the
// enums are refused at the C API's door: see test_collectives.cpp).
TEST_CASE("runtime refuses roots outside the communicator, missing arrays, device memory",
          "[runtime]") {
  CHECK(cct::test::on_ranks(1, [](cct::Communicator& comm) {
          cct::Runtime rt(cct::test::registry(), share(comm), {});
          int value = 7, result = 0;
          const auto refused = [&](cct_coll_args args, cct_status status, const std::string& why) {
            try {
              rt.run(args);
            } catch (const cct::Error& e) {
              expect(e.status() == status && std::string(e.what()).find(why) != std::string::npos,
                     std::string("refused as ") + e.what() + ", want " + why);
              return;
            }
            expect(false, "not refused: " + why);
          };
          auto args = cct::test::coll_args(CCT_BCAST, nullptr, &value, 1, CCT_INT32, 1, 0);
          refused(args, CCT_ERR_INVALID_ARG, "root 1 is outside 0..0");
          args = cct::test::coll_args(CCT_ALLGATHERV, &value, &result, 0, CCT_INT32, 0, 0);
          refused(args, CCT_ERR_INVALID_ARG, "recvcounts is NULL");
          args = cct::test::coll_args(CCT_ALLREDUCE, &value, &result, 1, CCT_INT32, 0, 0);
          args.recvmem = CCT_MEMORY_DEVICE;
          refused(args, CCT_ERR_UNSUPPORTED, "takes host memory only");
          // The runtime is still whole: the same call in host memory runs.
          args.recvmem = CCT_MEMORY_HOST;
          rt.run(args);
          expect(result == 7, "allreduce on one rank after the refusals");
        }) == "");
}

// alltoallv's size is known to no rank alone: where the rules choose by
// size the ranks agree on it, so that every rank runs the same algorithm
// even though only rank 0 sends anything. Rank 0 sends b bytes to each of
// 3 ranks: the key is 3b / 9 = b / 3.
TEST_CASE("runtime agrees on the size of a call whose counts differ between ranks", "[runtime]") {
  const auto force =
      cct::parse_force("alltoallv:0-64:linear;alltoallv:64-max:pairwise", &cct::test::registry());
  CHECK(cct::test::on_ranks(3, [&](cct::Communicator& comm) {
          cct::Selector selector({}, force, cct::test::registry(), "shm", comm.size());
          cct::Runtime rt(cct::test::registry(), share(comm), {.stats = true}, std::move(selector));
          for (std::size_t b : {std::size_t{30}, std::size_t{600}}) {
            const std::size_t mine = rt.rank() == 0 ? b : 0;
            const std::vector<std::size_t> sends(3, mine), sdispls{0, mine, 2 * mine};
            const std::vector<std::size_t> receives{b, 0, 0}, rdispls{0, b, b};
            std::vector<unsigned char> in(3 * mine), out(b, 0);
            for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<unsigned char>(i);
            auto args =
                cct::make_call(CCT_ALLTOALLV, in.data(), out.data(), 0, CCT_UINT8, CCT_SUM, 0);
            args.sendcounts = sends.data(), args.sdispls = sdispls.data();
            args.recvcounts = receives.data(), args.rdispls = rdispls.data();
            rt.run(args);
            for (std::size_t i = 0; i < b; ++i)
              expect(out[i] == static_cast<unsigned char>(rt.rank() * b + i),
                     "alltoallv byte " + std::to_string(i));
          }
          expect(calls_of(rt, CCT_ALLTOALLV, "linear") == 1, "the small call: linear");
          expect(calls_of(rt, CCT_ALLTOALLV, "pairwise") == 1, "the large call: pairwise");
        }) == "");
}
