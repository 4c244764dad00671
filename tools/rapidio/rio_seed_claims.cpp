// rio_seed_claims: the MPIRIO seed's claims about switch-assisted
// collectives, measured on the RapidIO fabric simulator.
//
// The seed (BWDSP DSPs, 4 per board on one RapidIO switch per board)
// claims that a switch that replicates broadcast packets reaches N DSPs in
// about log4(N) steps where a binomial tree of DSP-to-DSP sends needs
// log2(N) rounds, and that a switch that packs the blocks of its 4 DSPs
// cuts a gather's packets from about N x log4(N) (software tree) to
// (N - 1) x 4/3. It also observed that 8 DSPs (2 boards) communicate
// faster than 16 (4 boards) because messages cross more switches. This
// program measures each claim and prints the seed's formula beside it; it
// does not assert that the formulas hold (the simulator is the judge), but
// every collective's result is checked and a wrong one fails the program.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "call_cost.hpp"
#include "cct/collectives.hpp"
#include "cct/error.hpp"
#include "cct/sdk/comm.hpp"
#include "simulated_job.hpp"

namespace {

using cct::rio_tools::CallCost;
using cct::rio_tools::expect;
using cct::rio_tools::SimulatedFabric;
using CommPtr = std::shared_ptr<cct::Communicator>;

constexpr const char* kUsage = R"(usage: rio_seed_claims [--sizes N,N,...] [--help]

Measures the MPIRIO seed's claims on the RapidIO fabric simulator, for N
DSPs (default 8,16,64,256; multiples of 4) on the fabric tree:N/4 (N/4
boards of 4 DSPs, switches linked as a tree):
  bcast  binomial tree vs switch_bcast, of 64 B (one packet) and of 64 KiB
  gather gather/binomial vs switch_gather, 60 B per rank (4 blocks fit one
         250-byte payload)
and the time of one message from DSP 0 to DSPs on farther boards of
chain:8 (250 B and 64 KiB).

What is counted, per call (every call runs in a fresh job, so every DSP
starts at virtual time 0 and the fabric is empty):
  data      data packets the DSPs injected (a message of B bytes is
            ceil(B / 250) packets per sender and receiver pair)
  switch    packets the switches made themselves (broadcast replicas,
            packed gather packets)
  hops      packets sent over a link, any kind (responses included)
  time_us   virtual time from the earliest DSP's start of the call to the
            latest DSP's end of it
Counters are the simulator's statistics after minus before the call, read
while no DSP runs. Every result is checked; the exit status is 1 when one
is wrong, 2 on bad arguments.
)";

constexpr std::size_t kSmallBcast = 64;
constexpr std::size_t kLargeBcast = 64 << 10;
constexpr std::size_t kGatherBlock = 60;
constexpr std::size_t kPacketPayload = 250;

uint8_t pattern(std::size_t i, int seed) {
  return static_cast<uint8_t>(i * 7 + 3 * seed + 1);
}

cct_coll_args coll_args(cct_collective c, const void* send, void* recv, std::size_t count,
                        int root) {
  return cct::make_call(c, send, recv, count, CCT_UINT8, CCT_SUM, root, 1);
}

// One call of `algorithm` in a fresh job of n DSPs; returns its cost (rank
// 0's view, which every rank shares) or throws with the job's failure.
using CallBody = std::function<void(cct::Communicator&, cct::Plan&)>;
CallCost measure_call(const SimulatedFabric& fabric, int n, cct_collective c, const char* algorithm,
                      const CallBody& call) {
  const cct::AlgorithmEntry* alg = fabric.registry().find_algorithm(c, algorithm);
  if (alg == nullptr) throw cct::Error(std::string("algorithm not found: ") + algorithm);
  CallCost cost;
  const std::string error = fabric.run(n, [&](cct::Bootstrap& boot, const CommPtr& comm) {
    cct::Plan plan(*alg, *comm, alg->default_params());
    const CallCost mine = cct::rio_tools::measure(boot, *comm, [&] { call(*comm, plan); });
    if (comm->rank() == 0) cost = mine;
  });
  if (!error.empty()) throw std::runtime_error(std::string(algorithm) + ": " + error);
  return cost;
}

void bcast_checked(cct::Communicator& comm, cct::Plan& plan, std::size_t bytes) {
  const int root = 0;
  std::vector<uint8_t> buf(bytes, 0);
  for (std::size_t i = 0; comm.rank() == root && i < bytes; ++i) buf[i] = pattern(i, root);
  plan.run(coll_args(CCT_BCAST, nullptr, buf.data(), bytes, root));
  for (std::size_t i = 0; i < bytes; ++i)
    expect(buf[i] == pattern(i, root), "bcast: rank " + std::to_string(comm.rank()) + " byte " +
                                           std::to_string(i) + " is wrong");
}

void gather_checked(cct::Communicator& comm, cct::Plan& plan) {
  const int root = 0;
  std::vector<uint8_t> send(kGatherBlock);
  for (std::size_t i = 0; i < kGatherBlock; ++i) send[i] = pattern(i, comm.rank());
  std::vector<uint8_t> recv(comm.rank() == root ? comm.size() * kGatherBlock : 0);
  plan.run(coll_args(CCT_GATHER, send.data(), recv.data(), kGatherBlock, root));
  for (std::size_t i = 0; i < recv.size(); ++i) {
    const int from = static_cast<int>(i / kGatherBlock);
    expect(recv[i] == pattern(i % kGatherBlock, from),
           "gather: the block of rank " + std::to_string(from) + " is wrong");
  }
}

void print_header() {
  std::printf("%-22s %5s %-14s %8s %8s %8s %12s  %s\n", "case", "N", "algorithm", "data", "switch",
              "hops", "time_us", "seed formula");
}

void print_row(const char* what, int n, const char* algorithm, const CallCost& cost,
               const std::string& formula) {
  std::printf("%-22s %5d %-14s %8llu %8llu %8llu %12.3f  %s\n", what, n, algorithm,
              static_cast<unsigned long long>(cost.packets.data),
              static_cast<unsigned long long>(cost.packets.by_switches),
              static_cast<unsigned long long>(cost.packets.hops), cost.seconds * 1e6,
              formula.c_str());
}

std::string formula(const char* text, double value, const char* unit) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s = %.1f %s", text, value, unit);
  return buf;
}

void bcast_rows(int n, std::size_t bytes, const char* what) {
  const SimulatedFabric fabric("tree:" + std::to_string(n / 4));
  auto call = [bytes](cct::Communicator& comm, cct::Plan& plan) {
    bcast_checked(comm, plan, bytes);
  };
  print_row(what, n, "binomial", measure_call(fabric, n, CCT_BCAST, "binomial", call),
            formula("log2 N", std::log2(n), "steps"));
  print_row(what, n, "switch_bcast", measure_call(fabric, n, CCT_BCAST, "switch_bcast", call),
            formula("log4 N", std::log2(n) / 2, "steps"));
}

void gather_rows(int n) {
  const SimulatedFabric fabric("tree:" + std::to_string(n / 4));
  const char* what = "gather 60 B per rank";
  print_row(what, n, "binomial", measure_call(fabric, n, CCT_GATHER, "binomial", gather_checked),
            formula("N x log4 N", n * std::log2(n) / 2, "packets"));
  print_row(what, n, "switch_gather",
            measure_call(fabric, n, CCT_GATHER, "switch_gather", gather_checked),
            formula("(N-1) x 4/3", (n - 1) * 4.0 / 3, "packets"));
}

// One message of `bytes` from DSP 0 to DSP `to`, in a fresh job of to + 1
// DSPs (the others idle).
CallCost message_cost(const SimulatedFabric& chain, int to, std::size_t bytes) {
  CallCost cost;
  const std::string error = chain.run(to + 1, [&](cct::Bootstrap& boot, const CommPtr& shared) {
    const cct::Communicator& comm = *shared;
    const cct::sdk::Comm p2p(comm.raw());
    std::vector<uint8_t> buf(bytes, 0);
    for (std::size_t i = 0; comm.rank() == 0 && i < bytes; ++i) buf[i] = pattern(i, 0);
    const CallCost mine = cct::rio_tools::measure(boot, comm, [&] {
      if (comm.rank() == 0) p2p.send(buf.data(), bytes, to, 1);
      if (comm.rank() == to) p2p.recv(buf.data(), bytes, 0, 1);
    });
    for (std::size_t i = 0; comm.rank() == to && i < bytes; ++i)
      expect(buf[i] == pattern(i, 0), "p2p: byte " + std::to_string(i) + " is wrong");
    if (comm.rank() == 0) cost = mine;
  });
  if (!error.empty()) throw std::runtime_error("p2p to DSP " + std::to_string(to) + ": " + error);
  return cost;
}

// The seed's "8 vs 16 DSPs": on a chain of boards, DSP 4k is on board k, so
// a message from DSP 0 crosses k + 1 switches (DSP 1 for k = 0: the same
// board, one switch).
void p2p_rows() {
  const SimulatedFabric chain("chain:8");
  std::printf("\np2p on chain:8 (board k holds DSPs 4k..4k+3)\n");
  std::printf("%5s %9s %9s %12s %12s %10s\n", "to", "switches", "data", "250B_us", "64KiB_us",
              "64KiB_data");
  for (int k = 0; k < 8; ++k) {
    const int to = k == 0 ? 1 : 4 * k;
    const CallCost small = message_cost(chain, to, kPacketPayload);
    const CallCost large = message_cost(chain, to, kLargeBcast);
    std::printf("%5d %9d %9llu %12.3f %12.3f %10llu\n", to, k + 1,
                static_cast<unsigned long long>(small.packets.data), small.seconds * 1e6,
                large.seconds * 1e6, static_cast<unsigned long long>(large.packets.data));
  }
}

std::vector<int> parse_sizes(const std::string& text) {
  std::vector<int> sizes;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const int n = std::stoi(text.substr(pos, comma - pos));
    if (n < 4 || n % 4 != 0) throw std::invalid_argument("N must be a positive multiple of 4");
    sizes.push_back(n);
    pos = comma + 1;
  }
  return sizes;
}

std::vector<int> parse_args(int argc, char** argv) {
  std::vector<int> sizes{8, 16, 64, 256};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--sizes" && i + 1 < argc) {
      sizes = parse_sizes(argv[++i]);
    } else if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else {
      throw std::invalid_argument("unknown argument '" + arg + "'");
    }
  }
  return sizes;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  try {
    sizes = parse_args(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rio_seed_claims: %s\n%s", e.what(), kUsage);
    return 2;
  }
  try {
    print_header();
    for (int n : sizes) {
      bcast_rows(n, kSmallBcast, "bcast 64 B");
      bcast_rows(n, kLargeBcast, "bcast 64 KiB");
      gather_rows(n);
    }
    p2p_rows();
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "rio_seed_claims: FAIL: %s\n", e.what());
    return 1;
  }
  std::printf("\nall results OK\n");
  return 0;
}
