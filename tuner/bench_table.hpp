// ccautotune tuner: the ratios to MPI in a ccbench output, for the report.
//
// ccbench's table (and tools/ccbench_runs.py's, the medians of several runs)
// starts with a header line whose first word is `collective`; its columns
// are found by name: `bytes`, `MPI`, and the ratios: `cct/MPI` (the runs'
// form), or `/MPI` after a transport's column (ccbench's own: `shm /MPI`),
// named after that column. Each following line is a row of whitespace-
// separated fields, `-` where there is no figure; blank lines are skipped
// and a later header starts a table of the same columns again. What comes
// before the first header is ccbench's preamble and is ignored.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cct::tuner {

struct BenchRow {
  std::string collective;
  int64_t bytes = 0;
  std::vector<double> ratios;  // one per BenchTable::series; NaN where "-"
};

struct BenchTable {
  std::vector<std::string> series;  // what each ratio is of: "cct", "shm", "mpi"
  std::vector<BenchRow> rows;
};

// The table of a ccbench output's text; `source` stands for the file name.
// Throws cct::Error("source:line: why") for a missing header or one without
// the columns, an unknown collective, a size, a ratio that is not one, or a
// row too short.
BenchTable parse_bench(const std::string& text, const std::string& source);
// The same from a file; cct::Error when it cannot be read.
BenchTable read_bench(const std::string& path);

}  // namespace cct::tuner
