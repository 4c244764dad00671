#include "tuner/buffer_memory.hpp"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "cct/units.hpp"
#include "tuner/measure.hpp"
#include "tuner/plan_space.hpp"

namespace cct::tuner {
namespace {

// From here on a rank's buffers are worth a line before they are made.
constexpr std::size_t kSayFrom = std::size_t{256} << 20;

// /proc/meminfo's MemAvailable (what can be allocated without swapping),
// or 0 when it is unknown.
std::size_t available_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::size_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib << 10;
  return 0;
}

// One buffer set: the largest send and the largest receive side among the
// calls a job measures (Measurer sizes its sets so).
std::size_t bytes_per_set(const Options& opts, int np) {
  std::size_t send = 0, recv = 0;
  for (cct_collective c : selected_collectives(opts.filter.collectives)) {
    const Call largest{c, largest_size(c, np, opts.filter), opts.filter.vector_counts};
    const Footprint f = footprint(largest, np);
    send = std::max(send, f.send);
    recv = std::max(recv, f.recv);
  }
  return send + recv;
}

// Memory the system reports, which is no round figure: "22.1 GiB".
std::string gib(std::size_t bytes) {
  std::ostringstream text;
  text.precision(1);
  text << std::fixed << static_cast<double>(bytes) / (1 << 30) << " GiB";
  return text.str();
}

}  // namespace

void check_buffer_memory(const Options& opts, int np, int ranks_here, bool speaks) {
  const std::size_t set = bytes_per_set(opts, np);
  const std::size_t per_rank = set * static_cast<std::size_t>(opts.measure.buffers);
  const std::size_t here = per_rank * static_cast<std::size_t>(ranks_here);
  const std::size_t available = available_bytes();
  std::ostringstream what;
  what << "np=" << np << ": each rank's buffers take " << format_bytes(per_rank) << " ("
       << opts.measure.buffers << " set(s) of " << format_bytes(set) << " for calls up to "
       << format_bytes(opts.filter.max_bytes) << " within --max-rank-bytes "
       << format_bytes(opts.filter.max_rank_bytes) << "), " << format_bytes(here) << " for the "
       << ranks_here << " rank(s) on this machine";
  if (available > 0 && here > available)
    throw UsageError(what.str() + ", more than the " + gib(available) +
                     " it has available: lower --buffers, --max-bytes or --max-rank-bytes");
  if (speaks && per_rank >= kSayFrom) std::cout << "ccautotune: " << what.str() << std::endl;
}

}  // namespace cct::tuner
