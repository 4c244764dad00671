// Device memory sent through host memory in overlapping chunks
// (cct/device/staged_pipe.hpp) over the shm transport. On the host-memory
// device backend this checks the pipeline's logic (cutting, ordering, slot
// reuse, waiting for copies, driving both directions at once), not a GPU;
// the same tests run on CUDA's backend where a GPU is present (skipped
// elsewhere, with the reason). Every message is checked byte for byte on
// the device side; the host backend runs a copy only when asked about it,
// so a chunk sent before its copy was done, or a slot reused before its
// copy left it, shows as wrong bytes.
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "cct/device/cuda_backend.hpp"
#include "cct/device/host_backend.hpp"
#include "cct/device/pinned_pool.hpp"
#include "cct/device/staged_pipe.hpp"
#include "cct/sdk/comm.hpp"
#include "support/device_harness.hpp"
#include "support/gpu.hpp"
#include "support/harness.hpp"

namespace {

using cct::device::Backend;
using cct::device::Buffer;
using cct::device::HostBackend;
using cct::device::PipeSetup;
using cct::device::RecvPipe;
using cct::device::SendPipe;
using cct::device::StagingShape;
using cct::test::expect;

unsigned char byte_of(int from, std::size_t i, std::size_t bytes) {
  return static_cast<unsigned char>(from * 131 + i * 7 + bytes);
}

// Memory holding rank `from`'s message of `bytes` bytes.
void put_message(Backend& device, const Buffer& memory, int from, std::size_t bytes) {
  std::vector<unsigned char> message(memory.bytes(), 0);
  for (std::size_t i = 0; i < bytes; ++i) message[i] = byte_of(from, i, bytes);
  cct::test::write_bytes(device, memory, message);
}

// Throws unless the memory holds rank `from`'s message, followed by the
// fill byte 0xEE to its end.
void check_message(Backend& device, const Buffer& memory, int from, std::size_t bytes,
                   const std::string& what) {
  const std::vector<unsigned char> got = cct::test::read_bytes(device, memory);
  for (std::size_t i = 0; i < got.size(); ++i) {
    const unsigned char want = i < bytes ? byte_of(from, i, bytes) : 0xEE;
    expect(got[i] == want, what + ": byte " + std::to_string(i) + " is " + std::to_string(got[i]) +
                               ", not " + std::to_string(want));
  }
}

void fill(Backend& device, const Buffer& memory, unsigned char value) {
  cct::test::write_bytes(device, memory, std::vector<unsigned char>(memory.bytes(), value));
}

Buffer::Kind buffer_kind(cct_memory_kind kind) {
  return kind == CCT_MEMORY_DEVICE ? Buffer::Kind::device : Buffer::Kind::pinned;
}

// Sizes around the chunk's edges, and a message of many chunks.
std::vector<std::size_t> sizes_for(std::size_t chunk) {
  return {0, 1, chunk - 1, chunk, chunk + 1, 2 * chunk, 9 * chunk + 3};
}

using MakeBackend = std::unique_ptr<Backend> (*)();

std::unique_ptr<Backend> host_backend() {
  return std::make_unique<HostBackend>();
}

// Every rank on device 0: the ranks of the tests share one GPU.
std::unique_ptr<Backend> cuda_backend() {
#if CCT_HAVE_CUDA
  return cct::device::open_cuda_backend(0);
#else
  throw std::logic_error("not built with CUDA");
#endif
}

// Each rank sends to its right and receives from its left at once, for
// every pairing of memory kinds: in round `mix`, rank r's send buffer is in
// device memory where (mix + r) is even, its receive buffer where
// (mix / 2 + r) is even, so neighbours disagree in some rounds.
void check_ring(MakeBackend make) {
  const StagingShape shapes[] = {{64, 1}, {64, 2}, {64, 3}, {4096, 2}};
  for (int ranks : {2, 3}) {
    INFO(ranks << " ranks");
    REQUIRE(cct::test::on_ranks(ranks, [&](cct::Communicator& comm) {
              const std::unique_ptr<Backend> backend = make();
              Backend& device = *backend;
              const int right = (comm.rank() + 1) % comm.size();
              const int left = (comm.rank() + comm.size() - 1) % comm.size();
              uint32_t tag = 1;
              for (const StagingShape& shape : shapes) {
                const PipeSetup setup{device, comm.transport().raw(), shape};
                SendPipe send(setup);
                RecvPipe recv(setup);
                for (int mix = 0; mix < 4; ++mix) {
                  const auto send_kind =
                      (mix + comm.rank()) % 2 ? CCT_MEMORY_HOST : CCT_MEMORY_DEVICE;
                  const auto recv_kind =
                      (mix / 2 + comm.rank()) % 2 ? CCT_MEMORY_HOST : CCT_MEMORY_DEVICE;
                  for (std::size_t bytes : sizes_for(shape.chunk_bytes)) {
                    Buffer out(device, buffer_kind(send_kind), bytes + 16);
                    Buffer in(device, buffer_kind(recv_kind), bytes + 16);
                    put_message(device, out, comm.rank(), bytes);
                    fill(device, in, 0xEE);
                    send.start(out.data(), send_kind, bytes, right, tag);
                    recv.start(in.data(), recv_kind, bytes, left, tag++);
                    cct::device::drive({&send, &recv}, 60);
                    check_message(device, in, left, bytes,
                                  "chunk " + std::to_string(shape.chunk_bytes) + " slots " +
                                      std::to_string(shape.slots) + " mix " + std::to_string(mix) +
                                      ", " + std::to_string(bytes) + " bytes");
                  }
                }
              }
            }) == "");
  }
}

}  // namespace

TEST_CASE("staging: every rank sends right and receives from the left at once", "[device]") {
  check_ring(host_backend);
}

TEST_CASE("staging on a GPU: every rank sends right and receives from the left (GPU)",
          "[device][gpu]") {
  if (!cct::test::skip_without_gpu()) check_ring(cuda_backend);
}

TEST_CASE("staging: copies run ahead of the transfers, as far as the slots allow", "[device]") {
  for (int slots : {1, 2, 3}) {
    INFO(slots << " slots");
    REQUIRE(cct::test::on_ranks(2, [&](cct::Communicator& comm) {
              HostBackend device;
              const PipeSetup setup{device, comm.transport().raw(), StagingShape{256, slots}};
              constexpr std::size_t kBytes = 10 * 256;
              Buffer memory(device, Buffer::Kind::device, kBytes + 16);
              if (comm.rank() == 0) {
                put_message(device, memory, 0, kBytes);
                const std::size_t before = device.max_pending();
                SendPipe send(setup);
                send.start(memory.data(), CCT_MEMORY_DEVICE, kBytes, 1, 5);
                cct::device::drive({&send}, 60);
                // Every free slot got its device-host copy before the
                // first chunk was sent, and never more than the slots.
                expect(device.max_pending() == std::max<std::size_t>(before, slots),
                       "most copies in flight: " + std::to_string(device.max_pending()));
              } else {
                fill(device, memory, 0xEE);
                RecvPipe recv(setup);
                recv.start(memory.data(), CCT_MEMORY_DEVICE, kBytes, 0, 5);
                cct::device::drive({&recv}, 60);
                expect(device.max_pending() <= static_cast<std::size_t>(slots),
                       "copies onto the device in flight: " + std::to_string(device.max_pending()));
                check_message(device, memory, 0, kBytes, "10 chunks");
              }
            }) == "");
  }
}

// PDBP's buffer pool: every rank sends a long message to each peer and
// receives one from each, all driven at once; each pipe owns one block and
// borrows the rest. The budget bounds what is lent (0: each message moves
// on its own block alone, still to the end), everything comes back, and a
// message alone borrows up to its slots.
TEST_CASE("staging: messages in flight share the pool's blocks, within its budget", "[device]") {
  for (const std::size_t budget : {std::size_t{0}, std::size_t{3}, std::size_t{16}}) {
    INFO("pool of " << budget << " blocks");
    REQUIRE(cct::test::on_ranks(3, [&](cct::Communicator& comm) {
              HostBackend device;
              cct::device::PinnedPool pool(device, 64, budget);
              const PipeSetup setup{device, comm.transport().raw(), StagingShape{64, 4}, &pool};
              constexpr std::size_t kBytes = 10 * 64 + 5;
              const int me = comm.rank(), left = (me + 2) % 3, right = (me + 1) % 3;
              Buffer out(device, Buffer::Kind::device, kBytes),
                  in_left(device, Buffer::Kind::device, kBytes),
                  in_right(device, Buffer::Kind::device, kBytes);
              put_message(device, out, me, kBytes);
              fill(device, in_left, 0xEE);
              fill(device, in_right, 0xEE);
              SendPipe to_left(setup), to_right(setup);
              RecvPipe from_left(setup), from_right(setup);
              from_left.start(in_left.data(), CCT_MEMORY_DEVICE, kBytes, left, 5);
              from_right.start(in_right.data(), CCT_MEMORY_DEVICE, kBytes, right, 5);
              to_left.start(out.data(), CCT_MEMORY_DEVICE, kBytes, left, 5);
              to_right.start(out.data(), CCT_MEMORY_DEVICE, kBytes, right, 5);
              cct::device::drive({&to_left, &to_right, &from_left, &from_right}, 60);
              check_message(device, in_left, left, kBytes, "from the left");
              check_message(device, in_right, right, kBytes, "from the right");
              expect(pool.most_lent() <= budget && (budget == 0 || pool.most_lent() > 0),
                     "most lent: " + std::to_string(pool.most_lent()));
              expect(pool.lent() == 0, "not given back: " + std::to_string(pool.lent()));

              // Alone, a message borrows up to its slots (1 own + 3).
              if (budget < 3) return;
              cct::device::PinnedPool alone(device, 64, budget);
              const PipeSetup single{device, comm.transport().raw(), StagingShape{64, 4}, &alone};
              if (me == 2) return;
              if (me == 0) {
                SendPipe send(single);
                send.start(out.data(), CCT_MEMORY_DEVICE, kBytes, 1, 6);
                cct::device::drive({&send}, 60);
              } else {
                RecvPipe recv(single);
                recv.start(in_left.data(), CCT_MEMORY_DEVICE, kBytes, 0, 6);
                cct::device::drive({&recv}, 60);
                check_message(device, in_left, 0, kBytes, "alone");
              }
              expect(alone.most_lent() == 3,
                     "alone, most lent: " + std::to_string(alone.most_lent()));
            }) == "");
  }
}

TEST_CASE("staging: a receive that times out says where it stands and can go on", "[device]") {
  REQUIRE(cct::test::on_ranks(2, [&](cct::Communicator& comm) {
            HostBackend device;
            cct_transport_instance* host = comm.transport().raw();
            const cct::sdk::Comm control(comm.raw());
            const PipeSetup setup{device, host, StagingShape{100, 2}};
            Buffer memory(device, Buffer::Kind::device, 1000);
            char go = 1;
            if (comm.rank() == 0) {
              // Sends only once the receiver gave up waiting.
              control.recv(&go, 1, 1, 9);
              put_message(device, memory, 0, 1000);
              SendPipe send(setup);
              send.start(memory.data(), CCT_MEMORY_DEVICE, 1000, 1, 3);
              cct::device::drive({&send}, 60);
              return;
            }
            RecvPipe recv(setup);
            recv.start(memory.data(), CCT_MEMORY_DEVICE, 1000, 0, 3);
            std::string reason;
            try {
              cct::device::drive({&recv}, 0.3);
            } catch (const cct::sdk::TransportError& e) {
              expect(e.status == CCT_ERR_TIMEOUT, "status " + std::to_string(e.status));
              reason = e.what();
            }
            expect(reason.find("staged receive of 1000 bytes into device memory from rank 0: of 10 "
                               "chunks, 2 posted") != std::string::npos,
                   "reason: " + reason);
            control.send(&go, 1, 0, 9);
            cct::device::drive({&recv}, 60);
            check_message(device, memory, 0, 1000, "after the timeout");
          }) == "");
}

TEST_CASE("staging: a shape without chunks or slots is refused", "[device]") {
  HostBackend device;
  CHECK_THROWS_WITH(SendPipe(PipeSetup{device, nullptr, StagingShape{0, 2}}),
                    Catch::Contains("chunk_bytes must be > 0"));
  CHECK_THROWS_WITH(RecvPipe(PipeSetup{device, nullptr, StagingShape{64, 0}}),
                    Catch::Contains("slots >= 1"));
}
