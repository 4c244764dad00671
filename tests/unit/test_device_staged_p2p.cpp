// Point-to-point on device and host memory over a host transport
// (cct/device/staged_p2p.hpp, the cuda transport's staged path), on the
// host-memory device backend over shm: this checks the logic, not a GPU.
// Messages are checked byte for byte: several to one peer in flight at
// once (their chunks must not interleave), every pairing of memory kinds,
// test() and waitall(), a timeout that names where each message stands
// and leaves them able to finish, and the host transport's refusals passed
// on with their reasons.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cct/device/host_backend.hpp"
#include "cct/device/staged_p2p.hpp"
#include "cct/sdk/comm.hpp"
#include "support/device_harness.hpp"
#include "support/harness.hpp"

namespace {

using cct::device::Buffer;
using cct::device::HostBackend;
using cct::device::StagedP2p;
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

void ok(cct_status status, const StagedP2p& p2p, const char* what) {
  expect(status == CCT_OK,
         std::string(what) + ": status " + std::to_string(status) + ": " + p2p.error());
}

}  // namespace

TEST_CASE("staged p2p: many messages to every peer in flight at once", "[device]") {
  constexpr int kMessages = 6;
  for (bool poll : {false, true}) {
    INFO((poll ? "test()" : "waitall()"));
    REQUIRE(cct::test::on_ranks(3, [&](cct::Communicator& comm) {
              HostBackend device;
              StagedP2p p2p(device, comm.transport().raw(), kShape, 60);
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

TEST_CASE("staged p2p: a wait that times out names each message and can go on", "[device]") {
  REQUIRE(cct::test::on_ranks(2, [&](cct::Communicator& comm) {
            HostBackend device;
            StagedP2p p2p(device, comm.transport().raw(), kShape, 0.3);
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
            expect(why.find("staged receive of 300 bytes into device memory from rank 0: of 5 "
                            "chunks, 2 posted") != std::string::npos &&
                       why.find("a receive from rank 0 waiting for the one before it") !=
                           std::string::npos,
                   "reason: " + why);
            control.send(&go, 1, 0, 9);
            ok(p2p.waitall(reqs, 2), p2p, "waitall after the timeout");
            expect(cct::test::read_bytes(device, first) == std::vector<unsigned char>(300, 1),
                   "first message");
            expect(cct::test::read_bytes(device, second) == std::vector<unsigned char>(10, 2),
                   "second message");
          }) == "");
}

TEST_CASE("staged p2p: bad arguments and the host transport's refusals, with reasons", "[device]") {
  REQUIRE(cct::test::on_ranks(2, [&](cct::Communicator& comm) {
            HostBackend device;
            StagedP2p p2p(device, comm.transport().raw(), kShape, 60);
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
