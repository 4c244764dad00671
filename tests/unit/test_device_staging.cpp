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
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "cct/device/cuda_backend.hpp"
#include "cct/device/host_backend.hpp"
#include "cct/device/staged_pipe.hpp"
#include "cct/sdk/comm.hpp"
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

// A device buffer holding rank `from`'s message of `bytes` bytes.
void put_message(Backend& device, const Buffer& memory, int from, std::size_t bytes) {
  std::vector<unsigned char> host(bytes);
  for (std::size_t i = 0; i < bytes; ++i) host[i] = byte_of(from, i, bytes);
  cct::device::UniqueStream stream(device);
  device.copy(memory.data(), host.data(), bytes, CCT_COPY_HOST_TO_DEVICE, stream.get());
  device.synchronize(stream.get());
}

// Throws unless the device buffer holds rank `from`'s message, followed by
// the fill byte up to `room`.
void check_message(Backend& device, const Buffer& memory, int from, std::size_t bytes,
                   std::size_t room, const std::string& what) {
  std::vector<unsigned char> host(room);
  cct::device::UniqueStream stream(device);
  device.copy(host.data(), memory.data(), room, CCT_COPY_DEVICE_TO_HOST, stream.get());
  device.synchronize(stream.get());
  for (std::size_t i = 0; i < room; ++i) {
    const unsigned char want = i < bytes ? byte_of(from, i, bytes) : 0xEE;
    expect(host[i] == want, what + ": byte " + std::to_string(i) + " is " +
                                std::to_string(host[i]) + ", not " + std::to_string(want));
  }
}

void fill_device(Backend& device, const Buffer& memory, unsigned char value) {
  std::vector<unsigned char> host(memory.bytes(), value);
  cct::device::UniqueStream stream(device);
  device.copy(memory.data(), host.data(), host.size(), CCT_COPY_HOST_TO_DEVICE, stream.get());
  device.synchronize(stream.get());
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
                for (std::size_t bytes : sizes_for(shape.chunk_bytes)) {
                  const std::size_t room = bytes + 16;
                  Buffer out(device, Buffer::Kind::device, room),
                      in(device, Buffer::Kind::device, room);
                  put_message(device, out, comm.rank(), bytes);
                  fill_device(device, in, 0xEE);
                  send.start(out.data(), bytes, right, tag);
                  recv.start(in.data(), bytes, left, tag++);
                  cct::device::drive({&send, &recv}, 60);
                  check_message(device, in, left, bytes, room,
                                "chunk " + std::to_string(shape.chunk_bytes) + " slots " +
                                    std::to_string(shape.slots) + ", " + std::to_string(bytes) +
                                    " bytes");
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
                send.start(memory.data(), kBytes, 1, 5);
                cct::device::drive({&send}, 60);
                // Every free slot got its device-host copy before the
                // first chunk was sent, and never more than the slots.
                expect(device.max_pending() == std::max<std::size_t>(before, slots),
                       "most copies in flight: " + std::to_string(device.max_pending()));
              } else {
                fill_device(device, memory, 0xEE);
                RecvPipe recv(setup);
                recv.start(memory.data(), kBytes, 0, 5);
                cct::device::drive({&recv}, 60);
                expect(device.max_pending() <= static_cast<std::size_t>(slots),
                       "copies onto the device in flight: " + std::to_string(device.max_pending()));
                check_message(device, memory, 0, kBytes, kBytes + 16, "10 chunks");
              }
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
              send.start(memory.data(), 1000, 1, 3);
              cct::device::drive({&send}, 60);
              return;
            }
            RecvPipe recv(setup);
            recv.start(memory.data(), 1000, 0, 3);
            std::string reason;
            try {
              cct::device::drive({&recv}, 0.3);
            } catch (const cct::sdk::TransportError& e) {
              expect(e.status == CCT_ERR_TIMEOUT, "status " + std::to_string(e.status));
              reason = e.what();
            }
            expect(
                reason.find("staged receive of 1000 bytes from rank 0: of 10 chunks, 2 posted") !=
                    std::string::npos,
                "reason: " + reason);
            control.send(&go, 1, 0, 9);
            cct::device::drive({&recv}, 60);
            check_message(device, memory, 0, 1000, 1000, "after the timeout");
          }) == "");
}

TEST_CASE("staging: a shape without chunks or slots is refused", "[device]") {
  HostBackend device;
  CHECK_THROWS_WITH(SendPipe(PipeSetup{device, nullptr, StagingShape{0, 2}}),
                    Catch::Contains("chunk_bytes must be > 0"));
  CHECK_THROWS_WITH(RecvPipe(PipeSetup{device, nullptr, StagingShape{64, 0}}),
                    Catch::Contains("slots >= 1"));
}
