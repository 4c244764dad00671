// The device backends (cct/device/backend.hpp). What both must do is
// checked on both: the host-memory one everywhere, CUDA's where a GPU is
// present (skipped elsewhere, with the reason): memory kinds, copies that
// complete by their event, reductions by the host's rules for every
// datatype and operator (8-bit sums wrap). The host backend, which the
// CUDA transport's logic is tested on without a GPU, must also be as
// strict as a GPU where that logic could otherwise pass by luck: device
// pointers fault when the host touches them, and enqueued work runs only
// once asked about, so a read before the event is done sees the old bytes.
// The lazy backend the transports hold opens theirs on first need only.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "cct/device/cuda_backend.hpp"
#include "cct/device/host_backend.hpp"
#include "cct/device/lazy_backend.hpp"
#include "cct/sdk/datatype.hpp"
#include "support/gpu.hpp"
#include "support/reference.hpp"

using cct::device::Backend;
using cct::device::Buffer;
using cct::device::HostBackend;
using cct::device::UniqueEvent;
using cct::device::UniqueStream;

TEST_CASE("host backend: the host cannot touch device memory", "[device]") {
  HostBackend device;
  Buffer memory(device, Buffer::Kind::device, 100);
  CHECK(device.kind_of(static_cast<unsigned char*>(memory.data()) + 100) == CCT_MEMORY_HOST);

  // A host load through a device pointer faults, as it does under CUDA.
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    std::signal(SIGSEGV, SIG_DFL);  // not the test framework's handler
    volatile unsigned char loaded = *static_cast<volatile unsigned char*>(memory.data());
    (void)loaded;
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV));
}

// Runs check in a child process: its exit status 0 is a pass.
bool in_child(const std::function<bool()>& check) {
  const pid_t child = fork();
  if (child == 0) _exit(check() ? 0 : 1);
  int status = 0;
  return child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) &&
         WEXITSTATUS(status) == 0;
}

bool throws_saying(const std::function<void()>& f, const std::string& part) {
  try {
    f();
  } catch (const cct::device::Error& e) {
    return std::string(e.what()).find(part) != std::string::npos;
  }
  return false;
}

TEST_CASE("host backend: device memory shared with another process, as by CUDA IPC", "[device]") {
  HostBackend device;
  void* memory = device.alloc(64);
  UniqueStream stream(device);
  const std::vector<unsigned char> mine(64, 5), theirs(64, 9);
  device.copy(memory, mine.data(), 64, CCT_COPY_HOST_TO_DEVICE, stream.get());
  device.synchronize(stream.get());
  const cct::device::IpcHandle handle = device.export_memory(memory);
  CHECK(throws_saying([&] { device.export_memory(static_cast<char*>(memory) + 1); },
                      "not the start of an allocation of this process"));
  CHECK(throws_saying([&] { device.open_memory(handle); }, "a handle of this process"));

  // Another process maps it: it reads this one's bytes, and its write is
  // seen here.
  CHECK(in_child([&] {
    HostBackend other;
    UniqueStream on(other);
    void* mapped = other.open_memory(handle);
    std::vector<unsigned char> read(64);
    other.copy(read.data(), mapped, 64, CCT_COPY_DEVICE_TO_HOST, on.get());
    other.copy(mapped, theirs.data(), 64, CCT_COPY_HOST_TO_DEVICE, on.get());
    other.synchronize(on.get());
    const bool located = other.kind_of(mapped) == CCT_MEMORY_DEVICE;
    other.close_memory(mapped);
    return read == mine && located && other.kind_of(mapped) == CCT_MEMORY_HOST;
  }));
  std::vector<unsigned char> now(64);
  device.copy(now.data(), memory, 64, CCT_COPY_DEVICE_TO_HOST, stream.get());
  device.synchronize(stream.get());
  CHECK(now == theirs);

  // Freed, and another allocation in its place: the old handle is refused.
  device.free(memory);
  void* next = device.alloc(64);
  CHECK(in_child([&] {
    HostBackend other;
    return throws_saying([&] { other.open_memory(handle); }, "is gone");
  }));
  cct::device::IpcHandle forged = handle;
  forged.bytes[0] ^= 1;
  CHECK(in_child([&] {
    HostBackend other;
    return throws_saying([&] { other.open_memory(forged); }, "not a handle of the host backend");
  }));
  device.free(next);
}

TEST_CASE("host backend: work runs when asked about, in order", "[device]") {
  HostBackend device;
  UniqueStream stream(device);
  UniqueEvent event(device);
  Buffer memory(device, Buffer::Kind::device, 64);
  std::vector<unsigned char> in(64, 7), out(64, 0);
  CHECK(device.done(event.get()));  // never recorded

  device.copy(memory.data(), in.data(), 64, CCT_COPY_HOST_TO_DEVICE, stream.get());
  device.copy(out.data(), memory.data(), 64, CCT_COPY_DEVICE_TO_HOST, stream.get());
  device.record(event.get(), stream.get());
  CHECK(out[0] == 0);                     // enqueued, not run
  CHECK_FALSE(device.done(event.get()));  // one of the two ran
  CHECK(out[0] == 0);
  CHECK(device.done(event.get()));
  CHECK(out == in);
  CHECK(device.max_pending() == 2);

  // Released memory synchronizes first, as cudaFree does.
  std::vector<unsigned char> late(64, 0);
  {
    Buffer scratch(device, Buffer::Kind::device, 64);
    device.copy(scratch.data(), in.data(), 64, CCT_COPY_HOST_TO_DEVICE, stream.get());
    device.copy(late.data(), scratch.data(), 64, CCT_COPY_DEVICE_TO_HOST, stream.get());
  }
  CHECK(late == in);
}

TEST_CASE("host backend: a copy outside device memory is refused, naming it", "[device]") {
  HostBackend device;
  UniqueStream stream(device);
  Buffer memory(device, Buffer::Kind::device, 16);
  std::vector<unsigned char> host(32);
  CHECK_THROWS_WITH(
      device.copy(memory.data(), host.data(), 32, CCT_COPY_HOST_TO_DEVICE, stream.get()),
      Catch::Contains("copy destination") && Catch::Contains("(32 bytes) is not inside device"));
  CHECK_THROWS_WITH(device.copy(host.data(), host.data(), 8, CCT_COPY_DEVICE_TO_HOST, stream.get()),
                    Catch::Contains("copy source"));
}

namespace {

void check_kinds(Backend& device) {
  Buffer memory(device, Buffer::Kind::device, 100);
  Buffer pinned(device, Buffer::Kind::pinned, 100);
  auto* base = static_cast<unsigned char*>(memory.data());
  CHECK(device.kind_of(base) == CCT_MEMORY_DEVICE);
  CHECK(device.kind_of(base + 99) == CCT_MEMORY_DEVICE);
  CHECK(device.kind_of(pinned.data()) == CCT_MEMORY_HOST);
  int on_stack = 0;
  CHECK(device.kind_of(&on_stack) == CCT_MEMORY_HOST);
}

// Host -> device -> device -> host, complete once the event is done.
void check_copies(Backend& device) {
  UniqueStream stream(device);
  UniqueEvent event(device);
  constexpr std::size_t kBytes = 3 << 20;
  Buffer a(device, Buffer::Kind::device, kBytes), b(device, Buffer::Kind::device, kBytes);
  Buffer in(device, Buffer::Kind::pinned, kBytes), out(device, Buffer::Kind::pinned, kBytes);
  auto* src = static_cast<unsigned char*>(in.data());
  for (std::size_t i = 0; i < kBytes; ++i) src[i] = static_cast<unsigned char>(i * 13 + i / 251);
  std::memset(out.data(), 0, kBytes);
  device.copy(a.data(), in.data(), kBytes, CCT_COPY_HOST_TO_DEVICE, stream.get());
  device.copy(b.data(), a.data(), kBytes, CCT_COPY_DEVICE_TO_DEVICE, stream.get());
  device.copy(out.data(), b.data(), kBytes, CCT_COPY_DEVICE_TO_HOST, stream.get());
  device.record(event.get(), stream.get());
  device.wait(event.get());
  CHECK(device.done(event.get()));
  CHECK(std::memcmp(out.data(), in.data(), kBytes) == 0);
}

void check_reductions(Backend& device) {
  UniqueStream stream(device);
  constexpr std::size_t kCount = 100003;  // more than one grid's worth of a kernel's threads
  for (int t = 0; t < CCT_DATATYPE_COUNT; ++t)
    for (int o = 0; o < CCT_OP_COUNT; ++o) {
      const auto dtype = static_cast<cct_datatype>(t);
      const auto op = static_cast<cct_op>(o);
      const std::size_t bytes = kCount * cct::sdk::dtype_size(dtype);
      auto a = cct::test::buffer(kCount, dtype), b = a, got = a, want = a;
      cct::test::fill(a.data(), kCount, dtype, 0, t * 10 + o);
      cct::test::fill(b.data(), kCount, dtype, 1, t * 10 + o);
      cct::test::expected_reduction(want.data(), kCount, dtype, op, 2, t * 10 + o);
      Buffer da(device, Buffer::Kind::device, bytes), db(device, Buffer::Kind::device, bytes);
      device.copy(da.data(), a.data(), bytes, CCT_COPY_HOST_TO_DEVICE, stream.get());
      device.copy(db.data(), b.data(), bytes, CCT_COPY_HOST_TO_DEVICE, stream.get());
      device.reduce(da.data(), db.data(), kCount, dtype, op, stream.get());
      device.copy(got.data(), da.data(), bytes, CCT_COPY_DEVICE_TO_HOST, stream.get());
      device.synchronize(stream.get());
      INFO(device.name() << ": dtype " << t << " op " << o);
      CHECK(cct::test::compare(got.data(), want.data(), kCount, dtype) == "");
    }
}

}  // namespace

TEST_CASE("host backend: kinds, copies and reductions", "[device]") {
  HostBackend device;
  check_kinds(device);
  check_copies(device);
  check_reductions(device);
}

TEST_CASE("cuda backend: kinds, copies and reductions (GPU)", "[device][gpu]") {
  if (cct::test::skip_without_gpu()) return;
#if CCT_HAVE_CUDA
  auto device = cct::device::open_cuda_backend(0);
  check_kinds(*device);
  check_copies(*device);
  check_reductions(*device);
#endif
}

// Nothing the transport does in a process that passes no device memory
// opens the backend (for CUDA: a context on the GPU): asking where an
// address is answers "host" without it while the process cannot hold
// device memory; releasing what was never made releases nothing. The first
// allocation, stream or locate once the process may hold device memory
// opens it, once; a failed open is tried again on the next call.
TEST_CASE("lazy backend: opened on first need only", "[device]") {
  int opens = 0;
  bool in_use = false, fail = true;
  cct::device::LazyBackend lazy(
      [&]() -> std::unique_ptr<Backend> {
        ++opens;
        if (fail) throw cct::device::Error("no device here");
        return std::make_unique<HostBackend>();
      },
      [&] { return in_use; });
  int on_stack = 0;
  CHECK(lazy.kind_of(&on_stack) == CCT_MEMORY_HOST);
  lazy.free(&on_stack);
  lazy.destroy_stream(cct::device::Stream{&on_stack});
  CHECK(opens == 0);
  CHECK_FALSE(lazy.opened());
  CHECK(std::string(lazy.name()) == "not opened");

  CHECK_THROWS_WITH(lazy.alloc(8), "no device here");
  CHECK(opens == 1);
  CHECK_FALSE(lazy.opened());
  fail = false;
  in_use = true;
  CHECK(lazy.kind_of(&on_stack) == CCT_MEMORY_HOST);  // opens: the process may hold device memory
  CHECK(opens == 2);
  CHECK(lazy.opened());
  Buffer memory(lazy, Buffer::Kind::device, 64);
  const cct_memory_region region = lazy.locate(static_cast<unsigned char*>(memory.data()) + 10);
  CHECK(region.kind == CCT_MEMORY_DEVICE);
  CHECK(region.base == memory.data());
  CHECK(region.bytes == 64);
  CHECK(std::string(lazy.name()) == "host");
  CHECK(opens == 2);
}
