// rio_apps: the MPIRIO seed's applications on the RapidIO fabric
// simulator, each checked against a computation on the host: matrix
// multiply (row blocks, and partial products with a reduce), Fox's
// algorithm, a global sum (hand-written butterfly vs the runtime's
// allreduce and reduce) and a convolution by im2col. Collectives go through
// cct::Runtime, so CCT_FORCE picks their algorithms as in any application.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "app.hpp"

namespace {

using cct::rio_tools::AppReport;
using cct::rio_tools::AppSettings;
using cct::rio_tools::SimulatedFabric;

constexpr const char* kUsage = R"(usage: rio_apps [--ranks P] [--fabric F] [--n N] [--help]

Runs the seed's applications on P simulated DSPs (default 8) of fabric F
(default chain:2: 2 boards of 4 DSPs), each in a fresh job, and checks each
result against the host's:
  matmul scatter+bcast+gather   C = A x B (N x N, default 64) by row blocks
  matmul partial products+reduce  column block x row block, summed by reduce
  fox QxQ grid                  Fox's algorithm on the largest square grid
                                of at most P DSPs
  sum butterfly (p2p)           recursive-doubling exchanges, by hand
  sum runtime allreduce/reduce  the same sum through the runtime
  conv im2col                   36x36x3 image, 5x5x3 kernel, VALID, stride 1
Per application: time_us, the virtual time from the earliest DSP's start
to the latest DSP's end of the whole computation (distribution of the
inputs included; local arithmetic is not charged: the DSPs compute in zero
virtual time); data, switch and hops, the packets the DSPs injected, the
packets the switches made (replicas, aggregates) and the link traversals,
all over that span. CCT_FORCE selects algorithms (e.g.
CCT_FORCE="bcast:0-max:switch_bcast"). Exit status 1 when a result is
wrong, 2 on bad arguments.
)";

AppSettings parse_args(int argc, char** argv, std::string& fabric) {
  AppSettings s;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--ranks" && has_value) {
      s.ranks = std::stoi(argv[++i]);
    } else if (arg == "--n" && has_value) {
      s.n = std::stoi(argv[++i]);
    } else if (arg == "--fabric" && has_value) {
      fabric = argv[++i];
    } else if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else {
      throw std::invalid_argument("unknown argument '" + arg + "'");
    }
  }
  const int q = static_cast<int>(std::sqrt(s.ranks));
  if (s.ranks < 1 || s.n < 1 || s.n % s.ranks != 0 || s.n % q != 0)
    throw std::invalid_argument("N must be a positive multiple of P and of sqrt(P)");
  return s;
}

bool print(const AppReport& r) {
  const bool ok = r.failure.empty();
  std::printf("%-32s %5d %12.3f %8llu %8llu %8llu  %s\n", r.name.c_str(), r.ranks,
              r.cost.seconds * 1e6, static_cast<unsigned long long>(r.cost.packets.data),
              static_cast<unsigned long long>(r.cost.packets.by_switches),
              static_cast<unsigned long long>(r.cost.packets.hops),
              ok ? "OK" : ("FAIL: " + r.failure).c_str());
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  std::string fabric = "chain:2";
  AppSettings settings;
  try {
    settings = parse_args(argc, argv, fabric);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rio_apps: %s\n%s", e.what(), kUsage);
    return 2;
  }
  try {
    const SimulatedFabric sim(fabric);
    std::printf("%-32s %5s %12s %8s %8s %8s  %s\n", "application", "DSPs", "time_us", "data",
                "switch", "hops", "result");
    bool all_ok = true;
    for (auto app : {cct::rio_tools::matrix_multiply, cct::rio_tools::fox_multiply,
                     cct::rio_tools::global_sum, cct::rio_tools::convolution})
      for (const AppReport& report : app(sim, settings)) all_ok = print(report) && all_ok;
    return all_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rio_apps: %s\n", e.what());
    return 1;
  }
}
