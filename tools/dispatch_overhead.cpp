// cct_dispatch_bench: what the runtime's dispatch costs per call.
//
// On one rank, a barrier and a 1-element allreduce do no communication, so
// the time of a call is the cost of getting to the algorithm and back. Each
// is timed through the runtime (rule lookup, usability check, cached plan,
// stats off) and by calling the same prepared plan directly, alternating
// blocks of calls; the difference is the dispatch overhead.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "cct/session.hpp"

namespace {

using Clock = std::chrono::steady_clock;

template <class F>
double ns_per_call(F&& f, int calls) {
  const auto start = Clock::now();
  for (int i = 0; i < calls; ++i) f();
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count() / calls;
}

// Median over blocks of the per-call time.
template <class F>
double median_ns(F&& f) {
  std::vector<double> blocks;
  for (int b = 0; b < 21; ++b) blocks.push_back(ns_per_call(f, 100000));
  std::sort(blocks.begin(), blocks.end());
  return blocks[blocks.size() / 2];
}

void compare(const char* what, cct::Runtime& rt, const cct_coll_args& args) {
  rt.run(args);  // prepares the plan
  cct::Plan& plan = *rt.choice_for(args).plan;
  const double via_runtime = median_ns([&] { rt.run(args); });
  const double direct = median_ns([&] { plan.run(args); });
  std::printf("%-26s %10.1f %10.1f %10.1f\n", what, via_runtime, direct, via_runtime - direct);
}

}  // namespace

int main() {
  auto session = cct::Session::from_environment();
  cct::Runtime& rt = session->runtime();
  if (rt.size() != 1) {
    std::fprintf(stderr, "cct_dispatch_bench: run it as one rank (no cclaunch)\n");
    return 2;
  }
  int value = 1, result = 0;
  const cct_coll_args barrier{sizeof barrier, CCT_ABI_VERSION, CCT_BARRIER};
  const cct_coll_args allreduce{sizeof allreduce,
                                CCT_ABI_VERSION,
                                CCT_ALLREDUCE,
                                &value,
                                &result,
                                1,
                                CCT_INT32,
                                CCT_SUM,
                                0,
                                0};
  std::printf("%-26s %10s %10s %10s\n", "ns per call (median)", "runtime", "direct", "overhead");
  compare("barrier, 1 rank", rt, barrier);
  compare("allreduce 4 B, 1 rank", rt, allreduce);
  return 0;
}
