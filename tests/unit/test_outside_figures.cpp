// The outside check's figures (tuner/outside_figures.hpp): their file, and
// the sizes they give back to the library, from synthetic rows.
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cct/error.hpp"
#include "support/harness.hpp"
#include "tuner/outside_figures.hpp"
#include "tuner/winners.hpp"

namespace {

using cct::tuner::OutsideFigure;
using cct::tuner::ResultRow;
using cct::tuner::Stage;

struct TempDir {
  std::string path = (std::filesystem::temp_directory_path() / "cct_outside_XXXXXX").string();
  TempDir() { REQUIRE(::mkdtemp(path.data()) != nullptr); }
  ~TempDir() { std::filesystem::remove_all(path); }
};

ResultRow row(int64_t bytes, const std::string& algorithm, double median_s,
              Stage stage = Stage::kConfirm) {
  return {.collective = "bcast",
          .transport = "shm",
          .np = 2,
          .bytes = bytes,
          .algorithm = algorithm,
          .params = algorithm == "knomial" ? "radix=4" : "",
          .result = {.median_s = median_s, .min_s = median_s, .max_s = median_s, .reps = 5},
          .stage = stage};
}

OutsideFigure figure(int64_t bytes, double library_s, double profile_s) {
  return {.collective = "bcast",
          .transport = "shm",
          .np = 2,
          .bytes = bytes,
          .pick = "knomial(radix=4)",
          .library_s = library_s,
          .profile_s = profile_s,
          .runs = 5};
}

// The algorithm each measured size of the rows' bcast bucket picks.
std::vector<std::string> picks(const std::vector<ResultRow>& rows) {
  std::vector<std::string> out;
  for (const cct::tuner::Winner& w : cct::tuner::pick_winners(rows, cct::test::registry()).best)
    out.push_back(w.algorithm);
  return out;
}

// knomial timed 30% faster than the library in the tuner at 4, 64 and 1k.
std::vector<ResultRow> flattering_rows() {
  std::vector<ResultRow> rows;
  for (int64_t bytes : {4, 64, 1024}) {
    rows.push_back(row(bytes, "mpi", 1e-6));
    rows.push_back(row(bytes, "knomial", 0.7e-6));
    rows.push_back(row(bytes, "binomial", 0.8e-6, Stage::kFinal));
  }
  return rows;
}

}  // namespace

TEST_CASE("a pick slower outside than the library alone is given back to it", "[tuner]") {
  std::vector<ResultRow> rows = flattering_rows();
  REQUIRE(picks(rows) == std::vector<std::string>{"knomial", "knomial", "knomial"});
  // Outside, knomial lost at 4 and 64 bytes (1.6x, 1.2x) and won at 1k.
  const std::vector<OutsideFigure> found{figure(4, 0.3e-6, 0.48e-6), figure(64, 0.3e-6, 0.36e-6),
                                         figure(1024, 0.6e-6, 0.4e-6)};
  const std::vector<std::string> said =
      cct::tuner::give_back_refuted(rows, found, cct::test::registry());
  CHECK(picks(rows) == std::vector<std::string>{"mpi", "mpi", "knomial"});
  REQUIRE(said.size() == 1);
  CHECK(said[0].find("bcast (2 sizes)") == 0);
  // Every other candidate there is raised too, not only the pick; the
  // library's rows and the unrefuted size are as they were.
  for (const ResultRow& r : rows) {
    if (r.algorithm == "mpi" || r.bytes == 1024) {
      CHECK(r.result.median_s == (r.algorithm == "mpi" ? 1e-6 : r.result.median_s));
      continue;
    }
    // Of every stage, also one the library has no row of (binomial's
    // final rows): a pick weighed by such a row's figure, scaled to the
    // confirmations, must lose its size too.
    const double ratio = r.bytes == 4 ? 1.6 : 1.2;
    CHECK(r.result.median_s == Approx(1e-6 * ratio));
  }
}

TEST_CASE("a pick that wins outside by 5% keeps its size; a tie goes to the library", "[tuner]") {
  std::vector<ResultRow> rows = flattering_rows();
  const std::vector<OutsideFigure> found{figure(4, 0.3e-6, 0.2e-6), figure(64, 0.3e-6, 0.284e-6),
                                         figure(1024, 0.6e-6, 0.59e-6)};
  CHECK(!found[0].refuted());
  CHECK(!found[1].refuted());  // 5.3% faster
  CHECK(found[2].refuted());   // 1.7% faster: within the noise, the library's
  CHECK(figure(4, 0.3e-6, 0.3e-6).refuted());
  cct::tuner::give_back_refuted(rows, found, cct::test::registry());
  CHECK(picks(rows) == std::vector<std::string>{"knomial", "knomial", "mpi"});
}

TEST_CASE(
    "a pick confirmed in one job is raised past the library's slower job, which it is weighed "
    "against",
    "[tuner]") {
  // The library confirmed in two jobs (1.0 and 1.8 us: weighed by the
  // slower), knomial in the first only (0.7 us).
  std::vector<ResultRow> rows = flattering_rows();
  for (int64_t bytes : {4, 64, 1024}) rows.push_back(row(bytes, "mpi", 1.8e-6, Stage::kReconfirm));
  REQUIRE(picks(rows) == std::vector<std::string>{"knomial", "knomial", "knomial"});
  // Outside, knomial lost at 4 bytes by 1.25x: raised to 1.25 x 1.8 us,
  // not 1.25 x 1.0 (which still beat 1.8).
  cct::tuner::give_back_refuted(rows, {{figure(4, 0.4e-6, 0.5e-6)}}, cct::test::registry());
  CHECK(picks(rows) == std::vector<std::string>{"mpi", "knomial", "knomial"});
}

TEST_CASE("an outside figure speaks only for its own bucket's rows", "[tuner]") {
  std::vector<ResultRow> rows = flattering_rows();
  for (ResultRow& r : rows) r.datatype = "float";  // typed rows; the figure is of every call
  OutsideFigure other_np = figure(4, 0.3e-6, 0.6e-6);
  other_np.np = 4;
  const std::vector<OutsideFigure> found{figure(4, 0.3e-6, 0.6e-6), other_np};
  const std::vector<ResultRow> before = rows;
  CHECK(cct::tuner::give_back_refuted(rows, found, cct::test::registry()).empty());
  for (std::size_t i = 0; i < rows.size(); ++i)
    CHECK(rows[i].result.median_s == before[i].result.median_s);
}

TEST_CASE("the outside file keeps what earlier checks refuted", "[tuner]") {
  const TempDir dir;
  const std::string path = cct::tuner::outside_path(dir.path + "/abc.csv");
  CHECK(path == dir.path + "/abc.outside");
  CHECK(cct::tuner::read_outside(path).empty());
  OutsideFigure typed = figure(4, 0.3e-6, 0.5e-6);
  typed.pick = "two_level(level=-1,chunk=8k)";  // commas inside: quoted
  typed.datatype = "float";
  cct::tuner::merge_outside(path, std::vector{figure(4, 0.3e-6, 0.5e-6), typed});
  // A later check of the same point and pick replaces it; the others stay.
  cct::tuner::merge_outside(path, std::vector{figure(4, 0.3e-6, 0.2e-6)});
  const std::vector<OutsideFigure> read = cct::tuner::read_outside(path);
  REQUIRE(read.size() == 2);
  CHECK(read[0].pick == "two_level(level=-1,chunk=8k)");
  CHECK(read[0].datatype == "float");
  CHECK(read[0].profile_s == 0.5e-6);
  CHECK(read[1].pick == "knomial(radix=4)");
  CHECK(read[1].profile_s == 0.2e-6);
  CHECK(read[1].runs == 5);
}

TEST_CASE("a malformed outside file is refused with its line", "[tuner]") {
  const TempDir dir;
  const std::string path = dir.path + "/abc.outside";
  std::ofstream(path) << "collective,transport,nodes,np,bytes,datatype,pick,library_s,profile_s,"
                         "runs\nbcast,shm,1,2,4,,knomial,0,1e-6,5\n";
  CHECK_THROWS_WITH(cct::tuner::read_outside(path), Catch::Contains("abc.outside:2: bad seconds"));
}

TEST_CASE("the sizes between a refuted one and the library's go back with it", "[tuner]") {
  // The tuner measured 6 between the checked 4 and 8 (a crossover's
  // bisection); 8 keeps the library; 16 is a win outside, 12 between.
  std::vector<ResultRow> rows;
  for (int64_t bytes : {4, 6, 8, 12, 16}) {
    rows.push_back(row(bytes, "mpi", 1e-6));
    rows.push_back(row(bytes, "knomial", bytes == 8 ? 1.1e-6 : 0.7e-6));
  }
  REQUIRE(picks(rows) ==
          std::vector<std::string>{"knomial", "knomial", "mpi", "knomial", "knomial"});
  OutsideFigure kept = figure(8, 0.3e-6, 0.3e-6);
  kept.pick = "mpi";
  const std::vector<OutsideFigure> found{figure(16, 0.5e-6, 0.4e-6), kept,
                                         figure(4, 0.3e-6, 0.45e-6)};
  cct::tuner::give_back_refuted(rows, found, cct::test::registry());
  CHECK(picks(rows) == std::vector<std::string>{"mpi", "mpi", "mpi", "knomial", "knomial"});
}
