// ccautotune tuner: a report of a results file as one self-contained HTML
// page (inline SVG and CSS; no script, nothing fetched), for people.
//
// Per collective and communicator shape (collective, transport, nodes, np):
// a log-log plot of the median time against the size, one series per
// algorithm and parameter values, with min-max whiskers; the crossover
// sizes as diamonds on their lines, the off-grid checks as crosses, the
// pruned candidates' screening figures as faint dots; bands shaded in the
// colour of the winner the profile built from these rows (pick_winners,
// build_rules) takes for each size range, a dashed line where it changes;
// and a table of those ranges. Given a ccbench output, a plot per
// collective of the time ratio to MPI's own call against the size.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cct/profile.hpp"
#include "cct/registry.hpp"
#include "tuner/bench_table.hpp"
#include "tuner/results_csv.hpp"

namespace cct::tuner {

struct ReportInput {
  std::vector<ResultRow> rows;  // of the results file (read_results)
  std::string results;          // its name, as the page shows it
  // The machine measured: its fingerprint and summary (describe_machine,
  // or a profile's); an empty fingerprint is shown as unknown.
  MachineInfo machine;
  std::string made_by;  // how the report was made: the command line
  // A ccbench output's ratios to MPI (read_bench), and its file's name.
  std::optional<BenchTable> bench;
  std::string bench_source;
};

// Writes the page to out, dated now. The registry is the one the profile
// is built with: rows it does not accept are drawn but shape no band, and
// the page lists them.
//
//   ccprofile report: write_report(input, registry, file);
void write_report(const ReportInput& input, const Registry& registry, std::ostream& out);

}  // namespace cct::tuner
