// The CCT_STATS table.
#include <algorithm>
#include <iomanip>
#include <map>
#include <ostream>

#include "cct/error.hpp"
#include "cct/runtime.hpp"
#include "cct/simulate.hpp"
#include "cct/units.hpp"

namespace cct {

const char* const kAgreedFirst = "(size agreed first)";

std::vector<StatsRow> Runtime::stats_rows() const {
  // Several rules may pick the same algorithm and parameters: one row each.
  std::map<std::pair<int, std::string>, StatsRow> rows;
  for (const auto& c : choices_) {
    if (c->calls == 0) continue;
    const cct_collective collective = c->algorithm->desc->collective;
    const std::string algorithm = format_choice(*c->algorithm->desc, c->params);
    StatsRow& r = rows[{collective, algorithm}];
    r.collective = collective;
    r.algorithm = algorithm;
    r.calls += c->calls;
    r.bytes += c->bytes;
    r.time += c->time;
  }
  // The calls that agreed on their size first pay that allreduce on top of
  // their algorithm's (or the library's) time: a row of its own.
  for (int c = 0; c < CCT_COLLECTIVE_COUNT; ++c)
    if (agreements_[c] > 0)
      rows[{c, kAgreedFirst}] = {.collective = static_cast<cct_collective>(c),
                                 .algorithm = kAgreedFirst,
                                 .calls = agreements_[c],
                                 .time = agreement_time_[c]};
  std::vector<StatsRow> out;
  for (auto& [key, row] : rows) out.push_back(std::move(row));
  return out;
}

// The collective and algorithm columns are as wide as their longest entry
// and a space, so that no two run together.
void print_stats_rows(std::ostream& out, const std::vector<StatsRow>& rows) {
  const bool grouped = !rows.empty() && !rows.front().communicators.empty();
  std::size_t collective = 11, algorithm = 34;
  for (const StatsRow& r : rows) {
    collective = std::max(collective, std::string(collective_name(r.collective)).size() + 1);
    algorithm = std::max(algorithm, r.algorithm.size() + 1);
  }
  const auto width = [](std::size_t w) { return std::setw(static_cast<int>(w)); };
  if (grouped) out << std::left << std::setw(16) << "communicators" << std::setw(7) << "count";
  out << std::left << width(collective) << "collective" << width(algorithm) << "algorithm"
      << std::right << std::setw(10) << "calls" << std::setw(14) << "bytes" << std::setw(14)
      << "total us" << std::setw(12) << "mean us"
      << "\n";
  for (const StatsRow& r : rows) {
    const double total = std::chrono::duration<double>(r.time).count();
    if (grouped) out << std::left << std::setw(16) << r.communicators << std::setw(7) << r.count;
    out << std::left << width(collective) << collective_name(r.collective) << width(algorithm)
        << r.algorithm << std::right << std::setw(10) << r.calls << std::setw(14) << r.bytes
        << std::setw(14) << format_micros(total) << std::setw(12)
        << format_micros(total / static_cast<double>(r.calls)) << "\n";
  }
}

void Runtime::print_stats(std::ostream& out) const {
  out << "cct stats, rank " << rank() << " of " << size() << "\n";
  print_stats_rows(out, stats_rows());
  // On a simulated platform the times above are virtual; its packet and
  // link counters say where they went.
  if (const std::string sim = simulation_stats(comm_->transport()); !sim.empty())
    out << "simulation (virtual time):\n" << sim << "\n";
}

}  // namespace cct
