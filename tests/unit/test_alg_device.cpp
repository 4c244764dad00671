// The algorithms on device memory (plugins/device), on the host_device
// transport, whose device pointers fault when the host touches them: an
// algorithm that read its buffers on the host, or sent what the device had
// not finished computing, fails here. On 1 to 5 ranks, every root, counts
// that do and do not divide by the rank count (0, 1, 7, n + 1, 1000), three
// datatypes and two operators for the reductions, out of place and in
// place (device_pdbp also with fewer flows than peers); each rank's result
// checked against the reference (reference.hpp) and nothing past its count
// written. On the GPU the same checks run on
// the cuda transport (skipped elsewhere, with the reason).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "cct/sdk/datatype.hpp"
#include "support/device_harness.hpp"
#include "support/gpu.hpp"
#include "support/harness.hpp"
#include "support/reference.hpp"

namespace {

using Bytes = std::vector<unsigned char>;
using cct::test::DeviceMemory;
using cct::test::expect;

constexpr unsigned char kUntouched = 0xA5;

struct Case {
  std::size_t count;
  cct_datatype dtype;
  cct_op op;
  int root;
  bool in_place;
  int salt;
};

// Memory of `bytes` (and a guard of 16 bytes past it) on the device.
struct Placed {
  Placed(cct_transport_instance* t, std::size_t bytes) : memory(t, bytes + 16), bytes(bytes) {
    memory.write(Bytes(bytes + 16, kUntouched));
  }
  void put(const Bytes& data) {
    Bytes all(bytes + 16, kUntouched);
    std::copy(data.begin(), data.end(), all.begin());
    memory.write(all);
  }
  DeviceMemory memory;
  std::size_t bytes;
};

Bytes operator+(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// What rank `rank` contributes: fill() of `elements` elements.
Bytes input(const Case& c, std::size_t elements, int rank) {
  Bytes b = cct::test::buffer(elements, c.dtype);
  cct::test::fill(b.data(), elements, c.dtype, rank, c.salt);
  return b;
}

// Runs one call; returns rank's receive side as the device left it.
Bytes run_call(cct::Communicator& comm, cct::Plan& plan, cct_collective coll, const Case& c,
               std::size_t send_elems, std::size_t recv_elems, uint32_t tag) {
  cct_transport_instance* t = comm.transport().raw();
  const std::size_t elem = cct::sdk::dtype_size(c.dtype);
  const int me = comm.rank();
  Placed send(t, send_elems * elem), recv(t, recv_elems * elem);
  if (coll == CCT_BCAST)
    recv.put(me == c.root ? input(c, c.count, c.root) : Bytes());
  else if (c.in_place && coll == CCT_ALLGATHER)  // the own block already in its place
    recv.put(Bytes(me * send_elems * elem, kUntouched) + input(c, send_elems, me));
  else if (c.in_place)
    recv.put(input(c, send_elems, me));
  else
    send.put(input(c, send_elems, me));
  cct_coll_args args{.struct_size = sizeof(cct_coll_args),
                     .abi_version = CCT_ABI_VERSION,
                     .collective = coll,
                     .sendbuf = c.in_place || coll == CCT_BCAST ? CCT_IN_PLACE : send.memory.data(),
                     .recvbuf = recv.memory.data(),
                     .count = c.count,
                     .dtype = c.dtype,
                     .op = c.op,
                     .root = c.root,
                     .tag = tag,
                     .sendmem = CCT_MEMORY_DEVICE,
                     .recvmem = CCT_MEMORY_DEVICE};
  if (coll == CCT_BCAST) args.sendbuf = nullptr;
  plan.run(args);
  Bytes got = recv.memory.read();
  for (std::size_t i = recv.bytes; i < got.size(); ++i)
    expect(got[i] == kUntouched, "written past the receive buffer's end");
  got.resize(recv.bytes);
  return got;
}

// Rank me's expected receive side of a call, from the reference.
Bytes expected(cct_collective coll, const Case& c, int me, int n) {
  const std::size_t k = c.count;
  switch (coll) {
    case CCT_ALLREDUCE:
    case CCT_REDUCE: {
      Bytes want = cct::test::buffer(k, c.dtype);
      cct::test::expected_reduction(want.data(), k, c.dtype, c.op, n, c.salt);
      return want;
    }
    case CCT_REDUCE_SCATTER_BLOCK: {
      Bytes want = cct::test::buffer(k, c.dtype);
      cct::test::expected_range(want.data(), k, c.dtype, c.op, 0, n, me * k, c.salt);
      return want;
    }
    case CCT_BCAST: return input(c, k, c.root);
    case CCT_ALLGATHER: {
      Bytes want;
      for (int r = 0; r < n; ++r) {
        const Bytes block = input(c, k, r);
        want.insert(want.end(), block.begin(), block.end());
      }
      return want;
    }
    default: {  // alltoall: block r is rank r's block for me
      const std::size_t elem = cct::sdk::dtype_size(c.dtype);
      Bytes want;
      for (int r = 0; r < n; ++r) {
        const Bytes all = input(c, n * k, r);
        want.insert(want.end(), all.begin() + me * k * elem, all.begin() + (me + 1) * k * elem);
      }
      return want;
    }
  }
}

// Elements rank me sends and receives in a call of this collective.
std::pair<std::size_t, std::size_t> extents(cct_collective coll, const Case& c, int me, int n) {
  const std::size_t k = c.count, all = n * k;
  switch (coll) {
    case CCT_REDUCE: return {k, me == c.root ? k : (c.in_place ? k : 0)};
    case CCT_REDUCE_SCATTER_BLOCK: return {all, c.in_place ? all : k};
    case CCT_BCAST: return {0, k};
    case CCT_ALLGATHER: return {k, all};
    case CCT_ALLTOALL: return {all, all};
    default: return {k, k};
  }
}

// params: the algorithm's, its defaults where empty.
void check(const cct::TransportEntry& device, cct_collective coll, const char* name,
           const std::vector<int64_t>& params = {}) {
  const bool reduction =
      coll == CCT_ALLREDUCE || coll == CCT_REDUCE || coll == CCT_REDUCE_SCATTER_BLOCK;
  for (int n = 1; n <= 5; ++n) {
    INFO(name << " on " << n << " ranks" << (params.empty() ? "" : ", parameters given"));
    REQUIRE(
        cct::test::on_device_ranks(n, device, [&](cct::Communicator& comm) {
          const cct::AlgorithmEntry& alg = cct::test::algorithm(coll, name);
          cct::Plan plan(alg, comm, params.empty() ? alg.default_params() : params);
          const int me = comm.rank();
          uint32_t tag = 1;
          int salt = 0;
          for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7},
                                    std::size_t(n + 1), std::size_t{1000}})
            for (cct_datatype dtype : {CCT_INT8, CCT_INT32, CCT_DOUBLE})
              for (cct_op op :
                   reduction ? std::vector<cct_op>{CCT_SUM, CCT_MAX} : std::vector<cct_op>{CCT_SUM})
                for (bool in_place : {false, true}) {
                  // The root's in-place form for reduce; bcast has one form.
                  if (in_place && coll == CCT_BCAST) continue;
                  const int root = (salt + 1) % n;
                  Case c{count, dtype, op, root, in_place, salt++};
                  if (in_place && coll == CCT_REDUCE && me != root) c.in_place = false;
                  const auto [send, recv] = extents(coll, c, me, n);
                  const Bytes got = run_call(comm, plan, coll, c, send, recv, tag++);
                  if (coll == CCT_REDUCE && me != root) continue;
                  Bytes want = expected(coll, c, me, n);
                  const std::string what = std::string(name) + " count " + std::to_string(count) +
                                           " dtype " + std::to_string(dtype) +
                                           (in_place ? " in place" : "");
                  Bytes head(got.begin(), got.begin() + std::min(got.size(), want.size()));
                  expect(cct::test::compare(head.data(), want.data(),
                                            want.size() / cct::sdk::dtype_size(dtype), dtype) == "",
                         what + ": " +
                             cct::test::compare(head.data(), want.data(),
                                                want.size() / cct::sdk::dtype_size(dtype), dtype));
                }
        }) == "");
  }
}

void check_all(const cct::TransportEntry& device) {
  check(device, CCT_ALLREDUCE, "device_ring");
  check(device, CCT_REDUCE_SCATTER_BLOCK, "device_ring");
  check(device, CCT_ALLGATHER, "device_ring");
  check(device, CCT_BCAST, "device_binomial");
  check(device, CCT_REDUCE, "device_binomial");
  check(device, CCT_ALLTOALL, "device_pairwise");
  check(device, CCT_ALLTOALL, "device_pdbp");
  // Fewer flows than peers: exchanges enter as the oldest complete.
  check(device, CCT_ALLTOALL, "device_pdbp", {1, 1 << 20});
  check(device, CCT_ALLTOALL, "device_pdbp", {2, 1 << 20});
}

// Every message staged (IPC off: the ranks, processes of this machine,
// would copy each other's memory otherwise), in chunks of 64 bytes, the
// algorithm's chunk parameter, so that the larger counts cross host memory
// in many chunks.
void check_all_staged(const cct::TransportEntry& device) {
  ::setenv("CCT_CUDA_IPC", "off", 1);
  check(device, CCT_ALLREDUCE, "device_ring", {64});
  check(device, CCT_REDUCE_SCATTER_BLOCK, "device_ring", {64});
  check(device, CCT_ALLGATHER, "device_ring", {64});
  check(device, CCT_BCAST, "device_binomial", {64});
  check(device, CCT_REDUCE, "device_binomial", {64});
  check(device, CCT_ALLTOALL, "device_pairwise", {64});
  check(device, CCT_ALLTOALL, "device_pdbp", {2, 64});
  ::unsetenv("CCT_CUDA_IPC");
}

}  // namespace

TEST_CASE("device algorithms on host memory posing as a device", "[device][algorithms]") {
  check_all(cct::test::host_device_transport());
}

TEST_CASE("device algorithms on the GPU (GPU)", "[device][algorithms][gpu]") {
  if (!cct::test::skip_without_gpu()) check_all(*cct::test::registry().find_transport("cuda"));
}

TEST_CASE("device algorithms staged in small chunks, on host memory posing as a device",
          "[device][algorithms]") {
  check_all_staged(cct::test::host_device_transport());
}

TEST_CASE("device algorithms staged in small chunks on the GPU (GPU)",
          "[device][algorithms][gpu]") {
  if (!cct::test::skip_without_gpu())
    check_all_staged(*cct::test::registry().find_transport("cuda"));
}
