// Speed of the RapidIO simulation engine: packet-hops simulated per second
// of wall time for a large broadcast, an all-pairs shift pattern and a
// 256-rank gather. Times only Engine::run; buffers are made before.
#include <chrono>
#include <cstdio>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "rapidio_sim/engine/engine.hpp"

namespace {

using cct::rio::Engine;

void measure(const char* name, Engine& engine, int nranks, const std::function<void(int)>& body) {
  const auto start = std::chrono::steady_clock::now();
  const auto failures = engine.run(nranks, body);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& f : failures)
    std::fprintf(stderr, "%s: rank %d: %s\n", name, f.rank, f.what.c_str());
  const cct::rio::Stats& s = engine.stats();
  cct::rio::Time longest = 0;
  for (cct::rio::Time t : s.rank_time) longest = std::max(longest, t);
  std::printf(
      "%-34s wall %.3f s  %.2f M packet-hops/s  packets %llu (data %llu, response %llu, "
      "switch %llu)  hops %llu  virtual %.6f s%s\n",
      name, wall, s.packet_hops / wall / 1e6,
      static_cast<unsigned long long>(s.data_packets + s.response_packets + s.control_packets +
                                      s.switch_packets),
      static_cast<unsigned long long>(s.data_packets),
      static_cast<unsigned long long>(s.response_packets),
      static_cast<unsigned long long>(s.switch_packets),
      static_cast<unsigned long long>(s.packet_hops), longest * 1e-12,
      failures.empty() ? "" : "  FAILED");
}

std::vector<int> all_ranks(int n) {
  std::vector<int> members(n);
  std::iota(members.begin(), members.end(), 0);
  return members;
}

void bcast_1mib() {
  Engine engine(cct::rio::load_fabric("tree:256"));
  const int n = engine.fabric().dsps();
  const std::vector<int> members = all_ranks(n);
  std::vector<std::vector<uint8_t>> bufs(n, std::vector<uint8_t>(1 << 20, 1));
  measure("mcast_bcast 1 MiB, tree:256", engine, n, [&](int rank) {
    engine.mcast_bcast(0, members, 0, bufs[rank].data(), bufs[rank].size());
  });
}

// Step k: every rank sends 16 KiB to rank + k and receives from rank - k.
void shift_all_pairs() {
  Engine engine(cct::rio::load_fabric("tree:16"));
  const int n = engine.fabric().dsps();
  const std::size_t bytes = 16 * 1024;
  std::vector<std::vector<uint8_t>> out(n, std::vector<uint8_t>(bytes, 2)),
      in(n, std::vector<uint8_t>(bytes));
  measure("p2p all-pairs shift 16 KiB, tree:16", engine, n, [&](int rank) {
    for (int k = 1; k < n; ++k) {
      cct::rio::Request reqs[2];
      engine.isend(0, (rank + k) % n, k, out[rank].data(), bytes, reqs[0]);
      engine.irecv(0, (rank + n - k) % n, k, in[rank].data(), bytes, reqs[1]);
      engine.waitall(reqs, 2);
    }
  });
}

void gather_256() {
  Engine engine(cct::rio::load_fabric("tree:64"));
  const int n = 256;
  const std::size_t block = 4096;
  const std::vector<int> members = all_ranks(n);
  std::vector<uint8_t> send(block, 3), recv(n * block);
  measure("aggregate_gather 4 KiB x 256, tree:64", engine, n, [&](int rank) {
    engine.aggregate_gather(0, members, 0, send.data(), rank == 0 ? recv.data() : nullptr, block);
  });
}

}  // namespace

int main() {
  bcast_1mib();
  shift_all_pairs();
  gather_256();
  return 0;
}
