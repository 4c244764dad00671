// The runtime on buffers in device memory (cct/host_staging.hpp): with
// a device transport, a call that passes device memory to an algorithm
// taking host memory only runs on host copies of its buffers. On
// host_device, whose device pointers fault when the host touches them (an
// algorithm reading one would end the rank): results equal those in host
// memory whatever memory the other ranks pass (kinds differ between ranks
// in every call here), in place and out of place, and the gaps a call
// leaves in a receive buffer keep their bytes.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cct/profile.hpp"
#include "cct/runtime.hpp"
#include "support/algorithms.hpp"
#include "support/device_harness.hpp"
#include "support/harness.hpp"

namespace {

using cct::test::DeviceMemory;
using cct::test::expect;
using Ints = std::vector<int32_t>;

// count int32 in device memory (on_device) or host memory.
class Buffer {
 public:
  Buffer(cct_transport_instance* device, bool on_device, std::size_t count) : host_(count) {
    if (on_device) device_.emplace(device, count * sizeof(int32_t));
  }
  cct_memory_kind kind() const { return device_ ? CCT_MEMORY_DEVICE : CCT_MEMORY_HOST; }
  void* data() { return device_ ? device_->data() : host_.data(); }
  void write(const Ints& values) {
    host_ = values;
    if (device_) device_->write(bytes_of(values));
  }
  Ints read() const {
    if (!device_) return host_;
    const std::vector<unsigned char> bytes = device_->read();
    Ints values(host_.size());
    std::memcpy(values.data(), bytes.data(), bytes.size());
    return values;
  }

 private:
  static std::vector<unsigned char> bytes_of(const Ints& values) {
    std::vector<unsigned char> bytes(values.size() * sizeof(int32_t));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
  }
  Ints host_;
  std::optional<DeviceMemory> device_;
};

int32_t value(int rank, std::size_t i) {
  return static_cast<int32_t>(rank * 1000 + i);
}

Ints values_of(int rank, std::size_t count, std::size_t first = 0) {
  Ints v(count);
  for (std::size_t i = 0; i < count; ++i) v[i] = value(rank, first + i);
  return v;
}

// The calls each algorithm ran, by name, from the runtime's stats.
// The calls of `algorithm`, whatever its parameters.
uint64_t calls_of(const cct::Runtime& rt, const std::string& algorithm) {
  uint64_t calls = 0;
  for (const cct::StatsRow& row : rt.stats_rows())
    if (row.algorithm == algorithm || row.algorithm.starts_with(algorithm + "("))
      calls += row.calls;
  return calls;
}

// Element i summed over n ranks.
int32_t sum(int n, std::size_t i) {
  return static_cast<int32_t>(1000 * n * (n - 1) / 2 + n * static_cast<int64_t>(i));
}

// Elements 0 .. count - 1 each summed over n ranks: what an allreduce gives.
Ints sums(int n, std::size_t count) {
  Ints all(count);
  for (std::size_t i = 0; i < count; ++i) all[i] = sum(n, i);
  return all;
}

cct_coll_args call(cct_collective c, Buffer* send, Buffer& recv, std::size_t count, int root = 0) {
  cct_coll_args args = cct::test::coll_args(c, send ? send->data() : CCT_IN_PLACE, recv.data(),
                                            count, CCT_INT32, root, 0);
  args.sendmem = send ? send->kind() : CCT_MEMORY_HOST;
  args.recvmem = recv.kind();
  return args;
}

}  // namespace

TEST_CASE("runtime: device buffers run the chosen host algorithm on host copies", "[device]") {
  constexpr std::size_t kCount = 1000;
  REQUIRE(cct::test::on_ranks_with_device(
              3, cct::test::host_device_transport(),
              [&](cct::Communicator& comm, std::shared_ptr<const cct::Communicator> on_device) {
                cct::Runtime rt(cct::test::registry(),
                                std::shared_ptr<cct::Communicator>(&comm, [](auto*) {}), {});
                rt.use_device(on_device);
                cct_transport_instance* dev = rt.device_transport();
                const int me = comm.rank(), n = comm.size();
                const Ints want = sums(n, kCount);

                // allreduce out of place: send on the device on ranks 0 and
                // 2, the result on the device on ranks 0 and 1.
                Buffer send(dev, me != 1, kCount), recv(dev, me != 2, kCount);
                send.write(values_of(me, kCount));
                rt.run(call(CCT_ALLREDUCE, &send, recv, kCount));
                expect(recv.read() == want, "allreduce");

                // allreduce in place, the buffer on the device on rank 1.
                Buffer inout(dev, me == 1, kCount);
                inout.write(values_of(me, kCount));
                rt.run(call(CCT_ALLREDUCE, nullptr, inout, kCount));
                expect(inout.read() == want, "allreduce in place");

                // reduce_scatter_block in place: the input is n blocks, the
                // result the rank's own block at the start.
                Buffer blocks(dev, me != 0, n * kCount);
                blocks.write(values_of(me, n * kCount));
                rt.run(call(CCT_REDUCE_SCATTER_BLOCK, nullptr, blocks, kCount));
                const Ints got = blocks.read();
                for (std::size_t i = 0; i < kCount; ++i)
                  expect(got[i] == sum(n, me * kCount + i),
                         "reduce_scatter_block in place at " + std::to_string(i));

                // bcast from rank 1, whose buffer is on the device.
                Buffer shared(dev, me == 1, kCount);
                shared.write(me == 1 ? values_of(7, kCount) : Ints(kCount, -1));
                rt.run(call(CCT_BCAST, nullptr, shared, kCount, 1));
                expect(shared.read() == values_of(7, kCount), "bcast");

                // gatherv to rank 0 (device memory) with a gap of 3 elements
                // before each block: the gaps keep their -5.
                std::vector<std::size_t> counts(n), displs(n);
                for (int r = 0; r < n; ++r) {
                  counts[r] = 10 + r;
                  displs[r] = r == 0 ? 3 : displs[r - 1] + counts[r - 1] + 3;
                }
                const std::size_t span = displs[n - 1] + counts[n - 1];
                Buffer mine(dev, me == 2, counts[me]), all(dev, me == 0, span);
                mine.write(values_of(me, counts[me]));
                all.write(Ints(span, -5));
                cct_coll_args gv = call(CCT_GATHERV, &mine, all, counts[me]);
                if (me == 0) {
                  gv.recvcounts = counts.data();
                  gv.rdispls = displs.data();
                }
                rt.run(gv);
                if (me == 0) {
                  Ints expected(span, -5);
                  for (int r = 0; r < n; ++r)
                    for (std::size_t i = 0; i < counts[r]; ++i)
                      expected[displs[r] + i] = value(r, i);
                  expect(all.read() == expected, "gatherv with gaps");
                }
              }) == "");
}

// The device rules (Runtime::use_device): where they take a call and every
// rank passes device memory, the algorithm on device memory runs; where one
// rank passes host memory (a different one each time), the runtime's own
// choice runs, staged. Every rank agrees alike, also where a decision
// (keeps_library) comes first and hands its agreement to the run. A size
// the device rules leave out, or whose rule chooses a host algorithm first,
// agrees on nothing and runs as before.
TEST_CASE("runtime: the device rules run an algorithm on device memory where every rank passes it",
          "[device]") {
  constexpr std::size_t kCount = 1000;
  REQUIRE(
      cct::test::on_ranks_with_device(
          3, cct::test::host_device_transport(),
          [&](cct::Communicator& comm, std::shared_ptr<const cct::Communicator> on_device) {
            const cct::Registry& registry = cct::test::registry();
            cct::Runtime rt(registry, std::shared_ptr<cct::Communicator>(&comm, [](auto*) {}),
                            {.stats = true});
            rt.use_device(on_device, cct::Selector(cct::Profile{},
                                                   cct::parse_force("allreduce:0-8k:device_ring;"
                                                                    "allreduce:8k-max:ring;"
                                                                    "bcast:0-4k:device_binomial",
                                                                    &registry),
                                                   registry, "host_device", comm.size()));
            expect(rt.agrees_on_memory(CCT_ALLREDUCE) && rt.agrees_on_memory(CCT_BCAST) &&
                       !rt.agrees_on_memory(CCT_BARRIER),
                   "agrees_on_memory");
            cct_transport_instance* dev = rt.device_transport();
            const int me = comm.rank(), n = comm.size();
            const Ints want = sums(n, kCount);

            // Every rank on the device: device_ring, also after a decision.
            Buffer send(dev, true, kCount), recv(dev, true, kCount);
            send.write(values_of(me, kCount));
            rt.run(call(CCT_ALLREDUCE, &send, recv, kCount));
            expect(recv.read() == want, "allreduce on the device");
            expect(!rt.keeps_library(call(CCT_ALLREDUCE, &send, recv, kCount)), "decision");
            rt.run(call(CCT_ALLREDUCE, &send, recv, kCount));
            expect(calls_of(rt, "device_ring") == 2, "device_ring ran twice");

            // One rank's result in host memory, another rank each time:
            // the built-in default, staged on the device ranks.
            for (int host_rank = 0; host_rank < n; ++host_rank) {
              Buffer mixed(dev, me != host_rank, kCount);
              expect(!rt.keeps_library(call(CCT_ALLREDUCE, &send, mixed, kCount)),
                     "decision, mixed");
              rt.run(call(CCT_ALLREDUCE, &send, mixed, kCount));
              expect(mixed.read() == want,
                     "allreduce with rank " + std::to_string(host_rank) + " on the host");
            }
            expect(calls_of(rt, "device_ring") == 2, "device_ring not chosen for mixed kinds");

            // In place on the device everywhere: device_ring again.
            Buffer inout(dev, true, kCount);
            inout.write(values_of(me, kCount));
            rt.run(call(CCT_ALLREDUCE, nullptr, inout, kCount));
            expect(inout.read() == want, "allreduce in place on the device");
            expect(calls_of(rt, "device_ring") == 3, "device_ring in place");

            // bcast: 4 KiB and up is outside the device rule, below it
            // on the device, both from rank 2.
            for (const std::size_t count : {std::size_t{16}, std::size_t{2048}}) {
              Buffer shared(dev, true, count);
              shared.write(me == 2 ? values_of(9, count) : Ints(count, -1));
              rt.run(call(CCT_BCAST, nullptr, shared, count, 2));
              expect(shared.read() == values_of(9, count), "bcast of " + std::to_string(count));
            }
            expect(calls_of(rt, "device_binomial") == 1, "device_binomial below 4 KiB only");

            // From 8 KiB the device rule chooses a host algorithm first:
            // not consulted (nothing agreed), the host rules run, staged.
            constexpr std::size_t kLarge = 4096;
            const Ints large_want = sums(n, kLarge);
            Buffer large_send(dev, true, kLarge), large(dev, true, kLarge);
            large_send.write(values_of(me, kLarge));
            rt.run(call(CCT_ALLREDUCE, &large_send, large, kLarge));
            expect(large.read() == large_want, "large allreduce");
            expect(calls_of(rt, "ring") == 0, "a device rule's host algorithm first is not asked");
          }) == "");
}

// A device rule whose algorithm on device memory refuses a call falls back
// to the rule's next candidate, a host algorithm, which runs on host copies
// of the device buffers (tests/plugins: small_device takes 16 elements at
// most).
TEST_CASE("runtime: a device rule's host fallback runs on host copies", "[device]") {
  cct::Registry& registry = cct::test::registry();
  registry.load_library(CCT_TEST_PLUGIN_DIR "/libcct_test_small_device.so");
  cct::Profile profile;
  cct::SizeRule rule{.algorithm = "small_device",
                     .fallbacks = {cct::Fallback{.algorithm = "ring"}}};
  profile.rules[CCT_ALLREDUCE]["host_device"] = {cct::RankBucket{.sizes = {rule}}};
  REQUIRE(
      cct::test::on_ranks_with_device(
          3, cct::test::host_device_transport(),
          [&](cct::Communicator& comm, std::shared_ptr<const cct::Communicator> on_device) {
            cct::Runtime rt(registry, std::shared_ptr<cct::Communicator>(&comm, [](auto*) {}),
                            {.stats = true});
            rt.use_device(on_device,
                          cct::Selector(profile, {}, registry, "host_device", comm.size()));
            cct_transport_instance* dev = rt.device_transport();
            const int me = comm.rank(), n = comm.size();
            for (const std::size_t count : {std::size_t{16}, std::size_t{17}, std::size_t{1000}}) {
              const Ints want = sums(n, count);
              Buffer send(dev, true, count), recv(dev, true, count);
              send.write(values_of(me, count));
              rt.run(call(CCT_ALLREDUCE, &send, recv, count));
              expect(recv.read() == want, "allreduce of " + std::to_string(count));
            }
            expect(calls_of(rt, "small_device") == 1, "small_device for 16 elements");
            expect(calls_of(rt, "ring") == 2, "ring, staged, for 17 and 1000");
          }) == "");
}
