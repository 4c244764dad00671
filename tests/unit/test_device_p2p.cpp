// Point-to-point on device and host memory over a host transport
// (cct/device/device_p2p.hpp, the cuda transport's p2p), on the
// host-memory device backend over shm: this checks the logic, not a GPU.
// Messages are checked byte for byte, staged and copied by IPC: several to
// one peer in flight at once (their chunks must not interleave), every
// pairing of memory kinds, test() and waitall(), a timeout that names
// where each message stands and leaves them able to finish, mismatched
// sizes and the host transport's refusals passed on with their reasons;
// between processes, device memory mapped from the peer, kept for the
// next message, and staging where it cannot be mapped.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cct/device/device_p2p.hpp"
#include "cct/device/host_backend.hpp"
#include "cct/device/ipc_mappings.hpp"
#include "cct/launcher.hpp"
#include "cct/sdk/comm.hpp"
#include "support/device_harness.hpp"
#include "support/harness.hpp"

namespace {

using cct::device::Buffer;
using cct::device::DeviceP2p;
using cct::device::HostBackend;
using cct::test::expect;

constexpr cct::device::StagingShape kShape{64, 2};

unsigned char byte_of(int from, int to, int message, std::size_t i) {
  return static_cast<unsigned char>(from * 61 + to * 17 + message * 5 + i * 3);
}

// Message m between two ranks: sizes around the chunk's edges, the memory
// kinds changing with the message and the rank.
std::size_t bytes_of(int message) {
  const std::size_t sizes[] = {200, 0, 64, 1000, 1, 129};
  return sizes[message % 6];
}
Buffer::Kind kind_of(int message, int rank) {
  return (message + rank) % 3 == 0 ? Buffer::Kind::pinned : Buffer::Kind::device;
}

void ok(cct_status status, const DeviceP2p& p2p, const char* what) {
  expect(status == CCT_OK,
         std::string(what) + ": status " + std::to_string(status) + ": " + p2p.error());
}

}  // namespace

TEST_CASE("device p2p: many messages to every peer in flight at once", "[device]") {
  constexpr int kMessages = 6;
  for (const auto& [poll, ipc] : {std::pair{false, false}, {true, false}, {false, true}}) {
    INFO((poll ? "test()" : "waitall()") << (ipc ? ", IPC" : ", staged only"));
    REQUIRE(cct::test::on_ranks(3, [&](cct::Communicator& comm) {
              HostBackend device;
              DeviceP2p p2p(device, comm.transport().raw(), kShape, ipc, 60);
              const int me = comm.rank();
              std::vector<std::unique_ptr<Buffer>> outs, ins;
              std::vector<cct_request> reqs;
              std::vector<std::pair<int, int>> received;  // (from, message) per receive
              reqs.reserve(2 * kMessages * comm.size());
              for (int peer = 0; peer < comm.size(); ++peer) {
                if (peer == me) continue;
                for (int m = 0; m < kMessages; ++m) {
                  const std::size_t bytes = bytes_of(m);
                  ins.push_back(std::make_unique<Buffer>(device, kind_of(m, me), bytes));
                  cct::test::write_bytes(device, *ins.back(),
                                         std::vector<unsigned char>(bytes, 0xEE));
                  reqs.emplace_back();
                  ok(p2p.irecv(ins.back()->data(), bytes, peer, 7, &reqs.back()), p2p, "irecv");
                  received.emplace_back(peer, m);
                  std::vector<unsigned char> message(bytes);
                  for (std::size_t i = 0; i < bytes; ++i) message[i] = byte_of(me, peer, m, i);
                  outs.push_back(std::make_unique<Buffer>(device, kind_of(m, me + 1), bytes));
                  cct::test::write_bytes(device, *outs.back(), message);
                  reqs.emplace_back();
                  ok(p2p.isend(outs.back()->data(), bytes, peer, 7, &reqs.back()), p2p, "isend");
                }
              }
              if (poll) {
                for (cct_request& req : reqs)
                  for (int done = 0; !done;) ok(p2p.test(&req, &done), p2p, "test");
              } else {
                ok(p2p.waitall(reqs.data(), reqs.size()), p2p, "waitall");
              }
              // Ranks are processes here (launch_local): a copy by IPC
              // maps the sender's allocation.
              uint64_t by_ipc = 0;
              for (const auto [from, m] : received)
                by_ipc += ipc && bytes_of(m) > 0 && kind_of(m, from + 1) == Buffer::Kind::device;
              expect(p2p.received().copied == by_ipc &&
                         p2p.received().staged == received.size() - by_ipc,
                     "copied " + std::to_string(p2p.received().copied) + ", staged " +
                         std::to_string(p2p.received().staged) + "; expected " +
                         std::to_string(by_ipc) + " copied");
              expect(p2p.ipc_refusal().empty(), "refused: " + p2p.ipc_refusal());
              for (std::size_t r = 0; r < ins.size(); ++r) {
                const auto [from, m] = received[r];
                const std::vector<unsigned char> got = cct::test::read_bytes(device, *ins[r]);
                for (std::size_t i = 0; i < got.size(); ++i)
                  expect(got[i] == byte_of(from, me, m, i),
                         "message " + std::to_string(m) + " from rank " + std::to_string(from) +
                             ": byte " + std::to_string(i) + " is " + std::to_string(got[i]));
              }
            }) == "");
  }
}

TEST_CASE("device p2p: a wait that times out names each message and can go on", "[device]") {
  for (const bool ipc : {false, true}) {
    INFO((ipc ? "IPC" : "staged only"));
    REQUIRE(cct::test::on_ranks(2, [&](cct::Communicator& comm) {
              HostBackend device;
              DeviceP2p p2p(device, comm.transport().raw(), kShape, ipc, 0.3);
              Buffer first(device, Buffer::Kind::device, 300),
                  second(device, Buffer::Kind::device, 10);
              cct_request reqs[2];
              const cct::sdk::Comm control(comm.raw());  // the host transport, no timeout
              char go = 1;
              if (comm.rank() == 0) {
                // Sends only once the receiver gave up waiting.
                control.recv(&go, 1, 1, 9);
                cct::test::write_bytes(device, first, std::vector<unsigned char>(300, 1));
                cct::test::write_bytes(device, second, std::vector<unsigned char>(10, 2));
                ok(p2p.isend(first.data(), 300, 1, 3, &reqs[0]), p2p, "isend");
                ok(p2p.isend(second.data(), 10, 1, 3, &reqs[1]), p2p, "isend");
                ok(p2p.waitall(reqs, 2), p2p, "waitall");
                return;
              }
              ok(p2p.irecv(first.data(), 300, 0, 3, &reqs[0]), p2p, "irecv");
              ok(p2p.irecv(second.data(), 10, 0, 3, &reqs[1]), p2p, "irecv");
              expect(p2p.waitall(reqs, 2) == CCT_ERR_TIMEOUT, "no timeout");
              const std::string why = p2p.error();
              const std::string first_stands =
                  ipc ? "a receive of 300 bytes from rank 0 waiting for its offer (IPC or staged)"
                      : "staged receive of 300 bytes into device memory from rank 0: of 5 "
                        "chunks, 2 posted";
              expect(why.find(first_stands) != std::string::npos &&
                         why.find("a receive from rank 0 waiting for the one before it") !=
                             std::string::npos,
                     "reason: " + why);
              control.send(&go, 1, 0, 9);
              ok(p2p.waitall(reqs, 2), p2p, "waitall after the timeout");
              expect(cct::test::read_bytes(device, first) == std::vector<unsigned char>(300, 1),
                     "first message");
              expect(cct::test::read_bytes(device, second) == std::vector<unsigned char>(10, 2),
                     "second message");
              expect(p2p.received().copied == (ipc ? 2u : 0u), "copied by IPC");
            }) == "");
  }
}

TEST_CASE("device p2p: bad arguments and the host transport's refusals, with reasons", "[device]") {
  REQUIRE(cct::test::on_ranks(2, [&](cct::Communicator& comm) {
            HostBackend device;
            DeviceP2p p2p(device, comm.transport().raw(), kShape, false, 60);
            cct_request req;
            char byte = 0;
            expect(p2p.isend(&byte, 1, 2, 0, &req) == CCT_ERR_INVALID_ARG &&
                       p2p.error() == "peer 2 of 2 ranks",
                   "peer: " + p2p.error());
            expect(p2p.irecv(nullptr, 8, 0, 0, &req) == CCT_ERR_INVALID_ARG &&
                       p2p.error() == "null buffer for 8 bytes",
                   "buffer: " + p2p.error());
            // Sizes that disagree: the host transport refuses the receive.
            std::vector<unsigned char> buf(100);
            const int peer = 1 - comm.rank();
            ok(comm.rank() == 0 ? p2p.isend(buf.data(), 10, peer, 4, &req)
                                : p2p.irecv(buf.data(), 20, peer, 4, &req),
               p2p, "post");
            const cct_status status = p2p.waitall(&req, 1);
            if (comm.rank() == 1)
              expect(status == CCT_ERR_INVALID_ARG &&
                         p2p.error().find("posted for tag 4 and 20 bytes") != std::string::npos,
                     "mismatch: " + p2p.error());
          }) == "");
}

TEST_CASE("device p2p: sizes that disagree fail on both sides, with IPC on", "[device]") {
  REQUIRE(cct::test::on_ranks(2, [&](cct::Communicator& comm) {
            HostBackend device;
            DeviceP2p p2p(device, comm.transport().raw(), kShape, true, 60);
            Buffer buf(device, Buffer::Kind::device, 100);
            cct_request req;
            const int peer = 1 - comm.rank();
            ok(comm.rank() == 0 ? p2p.isend(buf.data(), 10, peer, 4, &req)
                                : p2p.irecv(buf.data(), 20, peer, 4, &req),
               p2p, "post");
            const cct_status status = p2p.waitall(&req, 1);
            const std::string said =
                comm.rank() == 0 ? "a send to rank 1 of tag 4 and 10 bytes met a receive posted "
                                   "for another tag or size"
                                 : "a receive from rank 0 posted for tag 4 and 20 bytes met a "
                                   "message of tag 4 and 10 bytes";
            expect(status == CCT_ERR_INVALID_ARG && p2p.error() == said,
                   "status " + std::to_string(status) + ": " + p2p.error());
          }) == "");
}

namespace {

// The host backend, counting the peers' allocations it maps, or refusing
// to map them as a GPU without peer access to the sender's would.
class MappingBackend final : public HostBackend {
 public:
  explicit MappingBackend(bool refuse) : refuse_(refuse) {}
  void* open_memory(const cct::device::IpcHandle& handle) override {
    ++opened;
    if (refuse_) throw cct::device::Error("no peer access (as the test's backend says)");
    return HostBackend::open_memory(handle);
  }
  int opened = 0;

 private:
  bool refuse_;
};

// Rank 0 and 1, processes of this node over shm, each sends the other
// `rounds` messages from one buffer in device memory and one in host
// memory, into buffers of the other kind.
std::string exchange_across_processes(bool refuse, int rounds) {
  const cct::TransportEntry* shm = cct::test::registry().find_transport("shm");
  REQUIRE(shm != nullptr);
  const cct::LaunchResult result =
      cct::launch_local({.ranks = 2, .timeout_s = 60}, [&](cct::Bootstrap& boot) {
        cct::TransportInstance host(*shm, boot);
        MappingBackend device(refuse);
        DeviceP2p p2p(device, host.raw(), kShape, true, 60);
        const int me = boot.rank(), peer = 1 - me;
        Buffer out_device(device, Buffer::Kind::device, 1000),
            out_host(device, Buffer::Kind::pinned, 200);
        Buffer in_host(device, Buffer::Kind::pinned, 1000),
            in_device(device, Buffer::Kind::device, 200);
        for (int round = 0; round < rounds; ++round) {
          std::vector<unsigned char> big(1000), small(200);
          for (std::size_t i = 0; i < big.size(); ++i) big[i] = byte_of(me, peer, round, i);
          for (std::size_t i = 0; i < small.size(); ++i) small[i] = byte_of(peer, me, round, i);
          cct::test::write_bytes(device, out_device, big);
          cct::test::write_bytes(device, out_host, small);
          cct_request reqs[4];
          ok(p2p.irecv(in_host.data(), 1000, peer, 1, &reqs[0]), p2p, "irecv");
          ok(p2p.irecv(in_device.data(), 200, peer, 2, &reqs[1]), p2p, "irecv");
          ok(p2p.isend(out_device.data(), 1000, peer, 1, &reqs[2]), p2p, "isend");
          ok(p2p.isend(out_host.data(), 200, peer, 2, &reqs[3]), p2p, "isend");
          ok(p2p.waitall(reqs, 4), p2p, "waitall");
          const std::vector<unsigned char> got_big = cct::test::read_bytes(device, in_host);
          const std::vector<unsigned char> got_small = cct::test::read_bytes(device, in_device);
          for (std::size_t i = 0; i < got_big.size(); ++i)
            expect(
                got_big[i] == byte_of(peer, me, round, i),
                "device message, byte " + std::to_string(i) + ", round " + std::to_string(round));
          for (std::size_t i = 0; i < got_small.size(); ++i)
            expect(got_small[i] == byte_of(me, peer, round, i),
                   "host message, byte " + std::to_string(i) + ", round " + std::to_string(round));
        }
        const DeviceP2p::Received& received = p2p.received();
        if (refuse) {
          expect(received.copied == 0 && received.staged == 2u * rounds,
                 "refused: copied " + std::to_string(received.copied));
          expect(device.opened == rounds, "a refused mapping is asked again each message");
          expect(p2p.ipc_refusal() == "from rank " + std::to_string(peer) +
                                          ": no peer access (as the test's backend says)",
                 "reason: " + p2p.ipc_refusal());
        } else {
          expect(received.copied == static_cast<uint64_t>(rounds) &&
                     received.staged == static_cast<uint64_t>(rounds),
                 "copied " + std::to_string(received.copied) + ", staged " +
                     std::to_string(received.staged));
          expect(device.opened == 1,
                 "the mapping is kept: opened " + std::to_string(device.opened) + " times");
        }
        return 0;
      });
  return result.error;
}

}  // namespace

TEST_CASE("device p2p: between processes, device memory is mapped from the peer and kept",
          "[device]") {
  CHECK(exchange_across_processes(false, 3) == "");
}

TEST_CASE("device p2p: where the peer's memory cannot be mapped, the message is staged",
          "[device]") {
  CHECK(exchange_across_processes(true, 2) == "");
}

namespace {

// Maps nothing: hands out addresses and counts what it opened and closed.
class FakeMappings final : public HostBackend {
 public:
  void* open_memory(const cct::device::IpcHandle&) override {
    return reinterpret_cast<void*>(uintptr_t{0x100000} * ++opened);
  }
  void close_memory(void* ptr) noexcept override { closed.push_back(ptr); }
  int opened = 0;
  std::vector<void*> closed;
};

cct::device::Offer offer_of(int allocation, uint64_t offset) {
  cct::device::Offer offer;
  offer.way = cct::device::Offer::Way::ipc;
  offer.pid = 1;  // never this process: pid 1 is init
  offer.offset = offset;
  offer.handle.bytes[0] = static_cast<unsigned char>(allocation);
  offer.handle.bytes[1] = static_cast<unsigned char>(allocation >> 8);
  return offer;
}

}  // namespace

TEST_CASE("ipc mappings: kept per allocation, the oldest closed past the limit", "[device]") {
  FakeMappings backend;
  {
    cct::device::IpcMappings mappings(backend, 2);
    const auto* first = static_cast<const unsigned char*>(mappings.source(0, offer_of(7, 0)));
    CHECK(mappings.source(0, offer_of(7, 16)) == first + 16);
    CHECK(backend.opened == 1);
    // Another peer's allocation is its own mapping, even with equal bytes.
    CHECK(mappings.source(1, offer_of(7, 0)) != first);
    CHECK(backend.opened == 2);

    // The same process: the address as it is, nothing opened.
    cct::device::Offer own = offer_of(8, 0);
    own.pid = static_cast<int32_t>(getpid());
    own.address = 0x1234;
    CHECK(mappings.source(0, own) == reinterpret_cast<const void*>(0x1234));
    CHECK(backend.opened == 2);

    // Used again, allocation 7 is the newest; filling the rest closes the
    // oldest (allocation 100), not it.
    mappings.source(0, offer_of(100, 0));
    mappings.source(0, offer_of(7, 0));
    for (int a = 101; a < 100 + static_cast<int>(cct::device::IpcMappings::kKept) - 1; ++a)
      mappings.source(0, offer_of(a, 0));
    CHECK(backend.closed.empty());
    const int opened = backend.opened;
    mappings.source(0, offer_of(200, 0));
    REQUIRE(backend.closed.size() == 1);
    CHECK(backend.closed[0] == reinterpret_cast<void*>(uintptr_t{0x100000} * 3));
    CHECK(mappings.source(0, offer_of(7, 0)) == first);
    CHECK(backend.opened == opened + 1);
  }
  // Destroyed: every mapping closed.
  CHECK(backend.closed.size() == 1 + cct::device::IpcMappings::kKept + 1);
}

TEST_CASE("device p2p: each message keeps the chunk size it was posted under", "[device]") {
  REQUIRE(cct::test::on_ranks(2, [&](cct::Communicator& comm) {
            HostBackend device;
            // Shape: 64-byte chunks by default, a pool of 2 blocks per size.
            DeviceP2p p2p(device, comm.transport().raw(), {64, 4, 2}, false, 60);
            const std::size_t chunks[] = {100, 0, 1000};  // 0: the shape's
            constexpr std::size_t kBytes = 2500;
            const int me = comm.rank(), peer = 1 - me;
            std::vector<std::unique_ptr<Buffer>> outs, ins;
            std::vector<cct_request> reqs(2 * std::size(chunks));
            for (std::size_t m = 0; m < std::size(chunks); ++m) {
              p2p.set_chunk(chunks[m]);
              std::vector<unsigned char> message(kBytes);
              for (std::size_t i = 0; i < kBytes; ++i) message[i] = byte_of(me, peer, m, i);
              outs.push_back(std::make_unique<Buffer>(device, Buffer::Kind::device, kBytes));
              ins.push_back(std::make_unique<Buffer>(device, Buffer::Kind::device, kBytes));
              cct::test::write_bytes(device, *outs.back(), message);
              ok(p2p.irecv(ins.back()->data(), kBytes, peer, 1, &reqs[2 * m]), p2p, "irecv");
              ok(p2p.isend(outs.back()->data(), kBytes, peer, 1, &reqs[2 * m + 1]), p2p, "isend");
            }
            ok(p2p.waitall(reqs.data(), reqs.size()), p2p, "waitall");
            for (std::size_t m = 0; m < std::size(chunks); ++m) {
              const std::vector<unsigned char> got = cct::test::read_bytes(device, *ins[m]);
              for (std::size_t i = 0; i < kBytes; ++i)
                expect(got[i] == byte_of(peer, me, m, i),
                       "message " + std::to_string(m) + ", byte " + std::to_string(i));
            }
            // One pool per size; each message borrowed its slots' blocks
            // beyond its own (2500 bytes is several chunks of each size).
            for (const std::size_t size : {std::size_t{100}, std::size_t{64}, std::size_t{1000}})
              expect(p2p.pool(size) != nullptr && p2p.pool(size)->most_lent() == 2 &&
                         p2p.pool(size)->lent() == 0,
                     "pool of " + std::to_string(size) + "-byte blocks");
            expect(p2p.pool(128) == nullptr, "a pool of a size no message used");
          }) == "");
}
