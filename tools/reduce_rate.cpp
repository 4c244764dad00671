// cct_reduce_bench: the rate of the SDK's reduction kernel (sdk::reduce_local,
// what every reducing algorithm combines with) for every datatype and
// operator, beside memcpy's rate on the same buffers, in one run: a
// reduction that runs at memory speed reads two vectors and writes one, as
// a copy reads one and writes one.
//
//   cct_reduce_bench [BYTES ...]     (default: 64k, in cache, and 16M, beyond it)
//
// Rates are bytes of the result per second, the median of 7 timings of
// enough calls to last about 20 ms. A benchmark, not a test.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include "cct/error.hpp"
#include "cct/sdk/datatype.hpp"
#include "cct/units.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// Bytes per second of f moving `bytes`: the median of 7 timings, each of
// enough calls to last about 20 ms.
double rate(std::size_t bytes, const std::function<void()>& f) {
  int calls = 1;
  for (;;) {
    const Clock::time_point start = Clock::now();
    for (int i = 0; i < calls; ++i) f();
    if (Clock::now() - start > std::chrono::milliseconds(20)) break;
    calls *= 2;
  }
  std::vector<double> seconds;
  for (int t = 0; t < 7; ++t) {
    const Clock::time_point start = Clock::now();
    for (int i = 0; i < calls; ++i) f();
    seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count() / calls);
  }
  std::sort(seconds.begin(), seconds.end());
  return static_cast<double>(bytes) / seconds[3];
}

void report(std::size_t bytes) {
  std::vector<unsigned char> a(bytes, 1), b(bytes, 1);
  const double copy = rate(bytes, [&] { std::memcpy(a.data(), b.data(), bytes); });
  std::printf("\n%s: memcpy %.1f GB/s; reduce_local in GB/s and as a share of memcpy's rate\n",
              cct::format_bytes(static_cast<int64_t>(bytes)).c_str(), copy / 1e9);
  std::printf("%-8s", "dtype");
  for (int op = 0; op < CCT_OP_COUNT; ++op)
    std::printf(" %14s", cct::op_name(static_cast<cct_op>(op)));
  std::printf("\n");
  for (int t = 0; t < CCT_DATATYPE_COUNT; ++t) {
    const auto dtype = static_cast<cct_datatype>(t);
    const std::size_t count = bytes / cct::sdk::dtype_size(dtype);
    std::printf("%-8s", cct::datatype_name(dtype));
    for (int op = 0; op < CCT_OP_COUNT; ++op) {
      // Values stay 1 under every operator, so no float ever turns
      // denormal or infinite and integer products never overflow.
      const double r = rate(bytes, [&] {
        cct::sdk::reduce_local(a.data(), b.data(), count, dtype, static_cast<cct_op>(op));
      });
      std::printf(" %6.1f (%4.2f)", r / 1e9, r / copy);
    }
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes;
  for (int i = 1; i < argc; ++i) {
    const auto bytes = cct::parse_bytes(argv[i]);
    if (!bytes || *bytes < 64) {
      std::fprintf(stderr, "cct_reduce_bench: bad size '%s' (e.g. 64k, 16M)\n", argv[i]);
      return 2;
    }
    sizes.push_back(static_cast<std::size_t>(*bytes));
  }
  if (sizes.empty()) sizes = {64 << 10, 16 << 20};
  for (std::size_t bytes : sizes) report(bytes);
  return 0;
}
