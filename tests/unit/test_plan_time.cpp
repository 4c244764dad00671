// The planned time of a shortlisted job (tuner/plan_time.hpp), from the
// job of the size below: its whole time grown as its calls grow, the calls
// as the shortlist's scaled figures say; a simulated job's grown with the
// ranks too; the second job's pass
// from the second job's own rows; the calls of the variants the shortlist
// leaves out not planned; nothing where the from job was not timed or
// measured nothing.
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "cct/error.hpp"
#include "tuner/job_times_file.hpp"
#include "tuner/plan_time.hpp"

namespace {

using cct::tuner::ResultRow;
using cct::tuner::Stage;

ResultRow row(int np, Stage stage, double median_s, int reps) {
  return {.collective = "bcast",
          .transport = "shm",
          .np = np,
          .bytes = 64,
          .algorithm = "binomial",
          .result = {.median_s = median_s, .min_s = median_s, .max_s = median_s, .reps = reps},
          .stage = stage};
}

// A row at np 2 that must not count; then at np 4 the first job's rows:
// grid rows timing 1 s (a final and a pruned row) and a confirmation 1 s
// more; then the second job's reconfirmation, 0.5 s.
const std::vector<ResultRow> kRows{row(2, Stage::kFinal, 1.0, 100), row(4, Stage::kFinal, 0.01, 60),
                                   row(4, Stage::kPruned, 0.1, 4),
                                   row(4, Stage::kConfirm, 0.01, 100),
                                   row(4, Stage::kReconfirm, 0.005, 100)};
const std::vector<ResultRow> kFirstJob(kRows.begin(), kRows.end() - 1);

cct::tuner::Shortlist shortlist(int np, int from_np, double kept_timed_s) {
  return {.np = np, .from_np = from_np, .kept = 3, .kept_timed_s = kept_timed_s};
}

}  // namespace

TEST_CASE("plan time: the from job's time grown as its calls grow by the model", "[cost]") {
  cct::tuner::JobTimes first(false, 0);
  first.finished({"shm", 1, 4}, 10.0, kFirstJob, 0);
  // The kept calls (3 s) x (2 s timed / 1 s of grid rows) are 6 s; the
  // from job's 10 s were for 2 s of them.
  REQUIRE(first.planned_s("shm", shortlist(8, 4, 3.0)));
  CHECK(*first.planned_s("shm", shortlist(8, 4, 3.0)) == Approx(10.0 * 6.0 / 2.0));
  CHECK_FALSE(first.planned_s("shm", shortlist(8, 2, 3.0)));  // np 2 was not timed
  CHECK_FALSE(first.planned_s("mpi", shortlist(8, 4, 3.0)));  // nor another transport
  // A job that measured nothing (all of it resumed) times nothing.
  cct::tuner::JobTimes resumed(false, 0);
  resumed.finished({"shm", 1, 4}, 0.1, kFirstJob, kFirstJob.size());
  CHECK_FALSE(resumed.planned_s("shm", shortlist(8, 4, 3.0)));
  CHECK_FALSE(resumed.timed("shm"));
  CHECK(first.timed("shm"));

  // The second job wrote only the reconfirmation.
  cct::tuner::JobTimes second(false, 0);
  second.finished({"shm", 1, 4}, 4.0, kRows, kFirstJob.size());
  // 3 s x (0.5 s / 1 s of grid rows) are 1.5 s, the 4 s were for 0.5 s.
  CHECK(*second.planned_s("shm", shortlist(8, 4, 3.0)) == Approx(4.0 * 1.5 / 0.5));
}

// A job beyond the two smallest sizes leaves out the variants that changed
// nothing below (shortlist.hpp): their calls, which the first job of the
// size below made, are not planned; the second job made none of them.
TEST_CASE("plan time: the variants the shortlist leaves out are not planned", "[cost]") {
  std::vector<ResultRow> rows = kFirstJob;
  ResultRow typed = row(4, Stage::kTyped, 0.01, 100);  // 1 s of reduce in float
  typed.collective = "reduce";
  typed.datatype = "float";
  rows.push_back(typed);
  cct::tuner::JobTimes first(false, 0), second(false, 0);
  first.keep_in("", 1);
  second.keep_in("", 2);
  first.finished({"shm", 1, 4}, 11.0, rows, 0);
  second.finished({"shm", 1, 4}, 4.0, kRows, kFirstJob.size());
  // The kept calls (3 s) x (3 s timed, less the variants left out, / 1 s
  // of grid rows); the 11 s were for 3 s of calls.
  cct::tuner::Shortlist s = shortlist(8, 4, 3.0);
  CHECK(*first.planned_s("shm", s) == Approx(11.0 * (3 * 3.0) / 3.0));
  s.left_out_timed_s = 1.0;
  CHECK(*first.planned_s("shm", s) == Approx(11.0 * (3 * 2.0) / 3.0));
  CHECK(*second.planned_s("shm", s) == Approx(4.0 * 1.5 / 0.5));  // as without
}

TEST_CASE("plan time: a simulated job grows with its calls and its ranks", "[cost]") {
  // With a warm-up call before each grid point, which its calls count:
  // grid rows 0.01 x 61 + 0.1 x 5 = 1.11 s, with the confirmation 2.11 s.
  cct::tuner::JobTimes simulated(true, 1);
  simulated.finished({"shm", 1, 4}, 10.0, kFirstJob, 0);
  // 10 s x (3 s x 2.11 / 1.11 planned / 2.11 s timed) x 16 / 4.
  CHECK(*simulated.planned_s("shm", shortlist(16, 4, 3.0)) == Approx(10.0 * 3 / 1.11 * 4));
}

// Job times kept beside the results (tuner/job_times_file.hpp): a resumed
// run plans from them as the run that timed them did; a job cut in two by
// an interruption is the sum of its parts; a malformed file is named with
// its line.
TEST_CASE("plan time: job times kept beside the results, read back by a resumed run", "[cost]") {
  std::string dir = (std::filesystem::temp_directory_path() / "cct_jobs_XXXXXX").string();
  REQUIRE(::mkdtemp(dir.data()) != nullptr);
  const std::string path = cct::tuner::job_times_path(dir + "/f075faeb24038433.csv");
  CHECK(path == dir + "/f075faeb24038433.jobs");
  {
    cct::tuner::JobTimes first(false, 0), second(false, 0);
    first.keep_in(path, 1);
    second.keep_in(path, 2);
    first.finished({"shm", 1, 4}, 10.0, kFirstJob, 0);
    second.finished({"shm", 1, 4}, 4.0, kRows, kFirstJob.size());
  }
  cct::tuner::JobTimes first(false, 0), second(false, 0);
  first.keep_in(path, 1);
  second.keep_in(path, 2);
  CHECK(*first.planned_s("shm", shortlist(8, 4, 3.0)) == Approx(10.0 * 6.0 / 2.0));
  CHECK(*second.planned_s("shm", shortlist(8, 4, 3.0)) == Approx(4.0 * 1.5 / 0.5));

  // The rest of the first job after an interruption: 5 s more, its own
  // rows timing 2 s more. 15 s for 4 s of calls; 3 s x (4 s / 1 s) planned.
  first.finished({"shm", 1, 4}, 5.0, kFirstJob, 0);
  CHECK(*first.planned_s("shm", shortlist(8, 4, 3.0)) == Approx(15.0 * 12.0 / 4.0));
  cct::tuner::JobTimes again(false, 0);
  again.keep_in(path, 1);
  CHECK(*again.planned_s("shm", shortlist(8, 4, 3.0)) == Approx(15.0 * 12.0 / 4.0));

  // A job across nodes plans the job of as many nodes below it only.
  cct::tuner::Shortlist across = shortlist(8, 4, 3.0);
  across.nodes = 2;
  CHECK_FALSE(again.planned_s("shm", across));
  again.finished({"shm", 2, 4}, 20.0, kFirstJob, 0);  // rows of 1 node: measured nothing
  CHECK_FALSE(again.planned_s("shm", across));
  std::vector<ResultRow> on_two = kFirstJob;
  for (ResultRow& r : on_two) r.nodes = 2;
  again.finished({"shm", 2, 4}, 20.0, on_two, 0);
  CHECK(*again.planned_s("shm", across) == Approx(20.0 * 6.0 / 2.0));
  CHECK(*again.planned_s("shm", shortlist(8, 4, 3.0)) == Approx(15.0 * 12.0 / 4.0));

  std::ofstream(path, std::ios::app) << "3,shm,1,8,1,1,1\n";
  cct::tuner::JobTimes malformed(false, 0);
  CHECK_THROWS_WITH(malformed.keep_in(path, 1), path + ":6: bad pass '3' (expected 1 or 2)");
  std::filesystem::remove_all(dir);
}

// A file written before the nodes column (2026-11-29) holds jobs of one
// node.
TEST_CASE("plan time: job times kept without nodes are of one node", "[cost]") {
  std::string dir = (std::filesystem::temp_directory_path() / "cct_jobs_XXXXXX").string();
  REQUIRE(::mkdtemp(dir.data()) != nullptr);
  const std::string path = dir + "/f075faeb24038433.jobs";
  std::ofstream(path) << "pass,transport,np,wall_s,timed_s,grid_timed_s\n1,shm,4,10,2,1\n";
  cct::tuner::JobTimes first(false, 0);
  first.keep_in(path, 1);
  CHECK(*first.planned_s("shm", shortlist(8, 4, 3.0)) == Approx(10.0 * 6.0 / 2.0));
  const std::vector<cct::tuner::JobRecord> records = cct::tuner::read_job_records(path);
  REQUIRE(records.size() == 1);
  CHECK(records[0].nodes == 1);
  // A record kept after them writes the file anew in the new format.
  cct::tuner::append_job_record(path, {.pass = 1, .transport = "mpi", .nodes = 2, .np = 8});
  const std::vector<cct::tuner::JobRecord> both = cct::tuner::read_job_records(path);
  REQUIRE(both.size() == 2);
  CHECK(both[0].np == 4);
  CHECK(both[0].wall_s == 10);
  CHECK(both[1].nodes == 2);
  std::ofstream(path, std::ios::app) << "1,shm,0,4,1,1,1\n";
  CHECK_THROWS_WITH(cct::tuner::read_job_records(path), path + ":4: bad nodes '0'");
  std::filesystem::remove_all(dir);
}
