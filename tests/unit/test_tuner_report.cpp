// The report's parts from synthetic rows and texts: escaping, the plots'
// axes, the ccbench table reader, and the page (one plot per shape, the
// winner bands, nothing unescaped from the rows). The page in a browser is
// tests/scripts/report.sh.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cct/error.hpp"
#include "support/harness.hpp"
#include "tuner/bench_table.hpp"
#include "tuner/markup.hpp"
#include "tuner/plot_axis.hpp"
#include "tuner/report_html.hpp"

namespace {

using cct::tuner::ResultRow;
using cct::tuner::Stage;

std::vector<std::string> tick_texts(const cct::tuner::Axis& axis) {
  std::vector<std::string> out;
  for (const cct::tuner::Tick& t : axis.ticks) out.push_back(t.text);
  return out;
}

ResultRow row(const std::string& collective, int np, int64_t bytes, const std::string& algorithm,
              const std::string& params, double median_s, Stage stage = Stage::kFinal) {
  return {
      .collective = collective,
      .transport = "shm",
      .np = np,
      .bytes = bytes,
      .algorithm = algorithm,
      .params = params,
      .result = {.median_s = median_s, .min_s = median_s * 0.9, .max_s = median_s * 1.2, .reps = 5},
      .stage = stage};
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string page_of(const cct::tuner::ReportInput& input) {
  std::ostringstream out;
  cct::tuner::write_report(input, cct::test::registry(), out);
  return out.str();
}

const char* const kBench =
    "ccbench: 2 ranks on 1 node(s), 2 hardware threads; times in us (median\n"
    "over repetitions of the max over ranks)\n"
    "collective   bytes       MPI       cct  cct/MPI  range        algorithm\n"
    "barrier          0      0.68      0.74     1.07  1.00-1.09    multilevel\n"
    "bcast            1      0.63      0.62     0.97  0.89-1.18    two_level\n"
    "bcast           1k      1.07      0.39     0.36  0.28-0.38    two_level\n"
    "\n"
    "bcast           4k      3.93      0.92        -  0.22-0.24    example_flat\n";

}  // namespace

TEST_CASE("escape_markup leaves no markup in the text", "[report]") {
  CHECK(cct::tuner::escape_markup("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&#39;");
  CHECK(cct::tuner::escape_markup("radix=4") == "radix=4");
}

TEST_CASE("the axes tick sizes as profiles write them, times by 1, 2, 5", "[report]") {
  const std::vector<double> sizes{1, 512, 32768};
  const cct::tuner::Axis bytes = cct::tuner::bytes_axis(sizes);
  CHECK(tick_texts(bytes) ==
        std::vector<std::string>{"1", "4", "16", "64", "256", "1k", "4k", "16k", "64k"});
  CHECK(bytes.fraction(1) == 0);
  CHECK(bytes.fraction(65536) == 1);
  CHECK(bytes.fraction(256) == Approx(0.5));

  const std::vector<double> with_zero{0, 4, 64};
  const cct::tuner::Axis barrier = cct::tuner::bytes_axis(with_zero);
  CHECK(barrier.zero);
  CHECK(tick_texts(barrier).front() == "0");
  CHECK(barrier.fraction(0) == 0);
  CHECK(barrier.fraction(4) > 0);

  const std::vector<double> times{1.5, 40};
  const cct::tuner::Axis log = cct::tuner::log_axis(times);
  CHECK(tick_texts(log) == std::vector<std::string>{"1", "2", "5", "10", "20", "50", "100"});
  const std::vector<double> wide{0.3, 4000};
  CHECK(tick_texts(cct::tuner::log_axis(wide)) ==
        std::vector<std::string>{"0.1", "1", "10", "100", "1000", "10000"});

  const std::vector<double> ratios{0.25, 0.9};
  const cct::tuner::Axis linear = cct::tuner::linear_axis(ratios, 1);
  CHECK(tick_texts(linear) == std::vector<std::string>{"0.2", "0.4", "0.6", "0.8", "1.0"});
}

TEST_CASE("parse_bench reads the ratio columns by their names", "[report]") {
  const cct::tuner::BenchTable runs = cct::tuner::parse_bench(kBench, "runs.txt");
  CHECK(runs.series == std::vector<std::string>{"cct"});
  REQUIRE(runs.rows.size() == 4);
  CHECK((runs.rows[0].collective == "barrier" && runs.rows[0].bytes == 0));
  CHECK((runs.rows[2].bytes == 1024 && runs.rows[2].ratios[0] == 0.36));
  CHECK(std::isnan(runs.rows[3].ratios[0]));

  // ccbench's own form: a ratio after each transport's column.
  const cct::tuner::BenchTable own = cct::tuner::parse_bench(
      "collective bytes MPI copy split shm /MPI algorithm mpi /MPI algorithm\n"
      "bcast 64k 6.38 0.82 0.80 3.60 0.55 two_level 6.40 1.00 mpi\n",
      "own.txt");
  CHECK(own.series == std::vector<std::string>{"shm", "mpi"});
  REQUIRE(own.rows.size() == 1);
  CHECK(own.rows[0].ratios == std::vector<double>{0.55, 1.00});
}

TEST_CASE("parse_bench names the file and line of what it cannot read", "[report]") {
  using Catch::Matchers::Equals;
  const auto error_of = [](const std::string& text) {
    try {
      cct::tuner::parse_bench(text, "b.txt");
    } catch (const cct::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error_of("ccbench: nothing\n"),
             Equals("b.txt: no ccbench table (a header line starting with 'collective')"));
  CHECK_THAT(error_of("collective bytes MPI cct\n"),
             Equals("b.txt:1: the header has no ratio column ('cct/MPI' or '/MPI')"));
  CHECK_THAT(error_of("collective MPI cct cct/MPI\n"),
             Equals("b.txt:1: the header has no 'bytes' or no 'MPI' column"));
  const std::string header = "collective bytes MPI cct cct/MPI\n";
  CHECK_THAT(error_of(header + "bcast 1 0.6 0.6 fast\n"),
             Equals("b.txt:2: ratio 'fast' is not a number"));
  CHECK_THAT(error_of(header + "bcast 1 0.6 0.6 1\nbcst 1 0.6 0.6 1\n"),
             Equals("b.txt:3: not a row: unknown collective 'bcst'"));
  CHECK_THAT(error_of(header + "bcast 1k 0.6\n"), Equals("b.txt:2: 3 fields, the header needs 5"));
  CHECK_THAT(error_of(header + "bcast 1q 0.6 0.6 1\n"),
             Equals("b.txt:2: bytes '1q' is not a size"));
}

TEST_CASE("write_report draws a plot per shape with its winner bands", "[report]") {
  cct::tuner::ReportInput input{
      .rows = {row("bcast", 2, 64, "binomial", "", 1e-6),
               row("bcast", 2, 64, "knomial", "radix=4", 2e-6),
               row("bcast", 2, 4096, "binomial", "", 9e-6),
               row("bcast", 2, 4096, "knomial", "radix=4", 4e-6),
               row("bcast", 2, 512, "knomial", "radix=4", 3e-6, Stage::kCrossover),
               row("bcast", 2, 512, "binomial", "", 2e-6, Stage::kCrossover),
               row("bcast", 2, 96, "binomial", "", 1.1e-6, Stage::kCheck),
               row("bcast", 2, 64, "chain", "segment=8k", 8e-6, Stage::kPruned),
               row("bcast", 4, 64, "binomial", "", 2e-6),
               row("barrier", 2, 0, "dissemination", "", 4e-7),
               row("bcast", 2, 64, "<script>alert(1)</script>", "", 1e-9)},
      .results = "a&b.csv",
      .machine = {.fingerprint = "0123456789abcdef", .summary = "pack:1 core:2 pu:2"},
      .made_by = "ccprofile report a&b.csv"};
  const std::string page = page_of(input);
  CHECK(count(page, "<svg class=\"plot\"") == 3);  // bcast on 2 and on 4 ranks, barrier
  CHECK(count(page, "<g class=\"series\"") == 6);  // 4 on 2 ranks, 1 on 4, 1 of barrier
  // The bands of bcast on 2 ranks: binomial up to 512, knomial from 4k;
  // a dashed line where they meet.
  CHECK(page.find("<td>0 to 4k</td><td><span class=\"swatch\" style=\"background:#1f77b4\">"
                  "</span>binomial</td>") != std::string::npos);
  CHECK(page.find("<td>4k to max</td><td><span class=\"swatch\" style=\"background:#ff7f0e\">"
                  "</span>knomial(radix=4)</td>") != std::string::npos);
  CHECK(count(page, "class=\"crossover\"") == 1);
  CHECK(page.find("0123456789abcdef (pack:1 core:2 pu:2)") != std::string::npos);
  CHECK(page.find("a&amp;b.csv") != std::string::npos);
  // The unknown algorithm is drawn, named escaped, and listed as left out.
  CHECK(page.find("<script") == std::string::npos);
  CHECK(page.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
  CHECK(page.find("left out of the rules") != std::string::npos);
  CHECK(page.find("7 final, 2 crossover, 1 check, 1 pruned") != std::string::npos);
}

TEST_CASE("write_report adds a ratio plot per collective of a ccbench output", "[report]") {
  cct::tuner::ReportInput input{.rows = {row("bcast", 2, 64, "binomial", "", 1e-6)},
                                .results = "r.csv",
                                .bench = cct::tuner::parse_bench(kBench, "runs.txt"),
                                .bench_source = "runs.txt"};
  const std::string page = page_of(input);
  CHECK(count(page, "<svg class=\"plot\"") == 3);  // bcast's results, barrier's and bcast's ratios
  CHECK(page.find("bcast: time against MPI&#39;s") != std::string::npos);
  CHECK(page.find(">machine</th><td>unknown<") != std::string::npos);
}
