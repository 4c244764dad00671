// The CCT_STATS table.
#include <iomanip>
#include <map>
#include <ostream>

#include "cct/error.hpp"
#include "cct/runtime.hpp"
#include "cct/simulate.hpp"
#include "cct/units.hpp"

namespace cct {
namespace {

struct Row {
  uint64_t calls = 0, bytes = 0;
  std::chrono::nanoseconds time{0};
};

}  // namespace

void Runtime::print_stats(std::ostream& out) const {
  // Several rules may pick the same algorithm and parameters: one row each.
  std::map<std::pair<int, std::string>, Row> rows;
  for (const auto& c : choices_) {
    if (c->calls == 0) continue;
    Row& r = rows[{c->algorithm->desc->collective, format_choice(*c->algorithm->desc, c->params)}];
    r.calls += c->calls;
    r.bytes += c->bytes;
    r.time += c->time;
  }
  out << "cct stats, rank " << rank() << " of " << size() << "\n"
      << std::left << std::setw(11) << "collective" << std::setw(34) << "algorithm" << std::right
      << std::setw(10) << "calls" << std::setw(14) << "bytes" << std::setw(12) << "total s"
      << std::setw(12) << "mean us"
      << "\n";
  for (const auto& [key, r] : rows) {
    const double total = std::chrono::duration<double>(r.time).count();
    out << std::left << std::setw(11) << collective_name(static_cast<cct_collective>(key.first))
        << std::setw(34) << key.second << std::right << std::setw(10) << r.calls << std::setw(14)
        << r.bytes << std::setw(12) << std::fixed << std::setprecision(6) << total << std::setw(12)
        << std::setprecision(2) << total * 1e6 / r.calls << "\n";
  }
  // On a simulated platform the times above are virtual; its packet and
  // link counters say where they went.
  if (const std::string sim = simulation_stats(comm_->transport()); !sim.empty())
    out << "simulation (virtual time):\n" << sim << "\n";
}

}  // namespace cct
