// The tuner's measurement engine: timing of a point over real ranks, the raw
// results file, the points to measure, and the progress line. No test
// asserts a timing value, only the shape of the results.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cct/collectives.hpp"
#include "cct/count_pattern.hpp"
#include "cct/error.hpp"
#include "support/harness.hpp"
#include "support/shared_array.hpp"
#include "tuner/measure.hpp"
#include "tuner/noise.hpp"
#include "tuner/plan_space.hpp"
#include "tuner/progress.hpp"
#include "tuner/results_csv.hpp"

namespace {

using cct::tuner::PointResult;
using cct::tuner::ResultRow;

constexpr double kTimeoutS = 60;

// One result per rank, in memory the forked ranks share with the test.
using SharedResults = cct::test::SharedArray<PointResult>;

// Measures one point of algorithm `name` on 2 ranks; returns rank 0's
// result after checking that rank 1 got the same one.
PointResult measure_on_2(cct_collective c, const char* name, int64_t bytes,
                         const cct::tuner::MeasureOptions& opts) {
  const cct::AlgorithmEntry& alg = cct::test::algorithm(c, name);
  const SharedResults results(8);
  REQUIRE(cct::test::on_ranks(
              2,
              [&](cct::Communicator& comm) {
                const cct::tuner::Call call{c, bytes};
                cct::tuner::Measurer measurer(cct::test::registry(), comm, {&call, 1}, opts);
                cct::Plan plan(alg, comm, alg.default_params());
                results[comm.rank()] = measurer.measure(plan, call);
              },
              kTimeoutS) == "");
  CHECK(results[0].median_s == results[1].median_s);
  CHECK(results[0].reps == results[1].reps);
  return results[0];
}

void check_sane(const PointResult& r, const cct::tuner::MeasureOptions& opts) {
  CHECK(r.min_s > 0);
  CHECK(r.min_s <= r.median_s);
  CHECK(r.median_s <= r.max_s);
  CHECK(r.reps >= opts.min_reps);
  CHECK(r.reps <= opts.max_reps);
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("cct-tuner-" + std::to_string(getpid()) + "-" + name))
      .string();
}

ResultRow sample_row(int64_t bytes, const std::string& params,
                     cct::tuner::Stage stage = cct::tuner::Stage::kFinal) {
  return ResultRow{.collective = "bcast",
                   .transport = "shm",
                   .np = 4,
                   .bytes = bytes,
                   .algorithm = "knomial",
                   .params = params,
                   .result = {.median_s = 1.25e-6, .min_s = 1e-6, .max_s = 3.00001e-5, .reps = 17},
                   .stage = stage};
}

void write_text(const std::string& path, const std::string& text, std::ios::openmode mode) {
  std::ofstream(path, mode) << text;
}

std::string read_text(const std::string& path) {
  std::ostringstream s;
  s << std::ifstream(path).rdbuf();
  return s.str();
}

// A results file at `path` of the current header and one `line` is
// refused, naming its line 2 and `why`.
void refused(const std::string& path, const std::string& line, const std::string& why) {
  write_text(path, std::string(cct::tuner::kResultsHeader) + "\n" + line + "\n", std::ios::trunc);
  CHECK_THROWS_WITH(cct::tuner::read_results(path), Catch::Contains(path + ":2: " + why));
}

}  // namespace

TEST_CASE("summarize and spread of figures", "[tuner]") {
  const PointResult r = cct::tuner::summarize({3.0, 1.0, 2.0, 10.0});
  CHECK(r.min_s == 1.0);
  CHECK(r.median_s == 2.5);
  CHECK(r.max_s == 10.0);
  CHECK(r.reps == 4);
  CHECK(cct::tuner::spread_is_tight({1.0, 1.01, 1.02, 0.99, 1.0}, 0.05));
  CHECK_FALSE(cct::tuner::spread_is_tight({1.0, 2.0, 3.0, 4.0}, 0.05));
}

TEST_CASE("measuring a real plan on 2 ranks gives sane figures", "[tuner]") {
  const cct::tuner::MeasureOptions opts{.min_reps = 5, .max_reps = 40, .budget_s = 0.5};
  check_sane(measure_on_2(CCT_BCAST, "binomial", 4096, opts), opts);
  check_sane(measure_on_2(CCT_BARRIER, "dissemination", 0, opts), opts);
  // Rotating buffers, and a reduction (int32 elements).
  cct::tuner::MeasureOptions rotating = opts;
  rotating.buffers = 3;
  check_sane(measure_on_2(CCT_ALLREDUCE, "ring", 1 << 16, rotating), rotating);
  check_sane(measure_on_2(CCT_ALLTOALL, "pairwise", 3, rotating), rotating);
}

TEST_CASE("candidates measured together: a figure each, the same on every rank", "[tuner]") {
  const cct::tuner::MeasureOptions opts{.min_reps = 5, .max_reps = 40, .budget_s = 0.5};
  const char* const names[] = {"binomial", "knomial", "chain"};
  const SharedResults results(6);
  REQUIRE(cct::test::on_ranks(
              2,
              [&](cct::Communicator& comm) {
                const cct::tuner::Call call{CCT_BCAST, 4096};
                cct::tuner::Measurer measurer(cct::test::registry(), comm, {&call, 1}, opts);
                std::vector<std::unique_ptr<cct::Plan>> owned;
                std::vector<cct::Plan*> plans;
                for (const char* name : names) {
                  const cct::AlgorithmEntry& alg = cct::test::algorithm(CCT_BCAST, name);
                  owned.push_back(std::make_unique<cct::Plan>(alg, comm, alg.default_params()));
                  plans.push_back(owned.back().get());
                }
                const std::vector<cct::tuner::Call> calls(plans.size(), call);
                const auto together = measurer.measure_together(plans, calls, opts);
                cct::test::expect(together.size() == 3, "not one figure per candidate");
                for (std::size_t i = 0; i < together.size(); ++i)
                  results[comm.rank() * 3 + i] = together[i];
              },
              kTimeoutS) == "");
  for (int i = 0; i < 3; ++i) {
    INFO(names[i]);
    check_sane(results[i], opts);
    CHECK(results[i].median_s == results[3 + i].median_s);
    CHECK(results[i].reps == results[3 + i].reps);
  }
  // Repetitions go on while any candidate asks for more: all get as many.
  CHECK(results[0].reps == results[1].reps);
  CHECK(results[1].reps == results[2].reps);
}

TEST_CASE("measurement stops on a tight spread, at max_reps, or at the budget", "[tuner]") {
  // Repetitions come in rounds: kFirstRound, then up to min_reps.
  cct::tuner::MeasureOptions opts{.min_reps = 6, .max_reps = 15};
  SECTION("any spread counts as tight: the first round is the last") {
    opts.tight = 1e9;
    CHECK(measure_on_2(CCT_BCAST, "binomial", 64, opts).reps == 6);
  }
  SECTION("no spread is tight and the budget is ample: max_reps") {
    opts.tight = 0;
    opts.budget_s = 60;
    CHECK(measure_on_2(CCT_BCAST, "binomial", 64, opts).reps == 15);
  }
  SECTION("the budget is spent by the first round: a call that costs more stops there") {
    opts.tight = 0;
    opts.budget_s = 1e-12;
    CHECK(measure_on_2(CCT_BCAST, "binomial", 64, opts).reps == cct::tuner::kFirstRound);
  }
  SECTION("a tight spread is judged only once min_reps were timed") {
    opts.tight = 1e9;
    opts.min_reps = 2 * cct::tuner::kFirstRound + 1;
    CHECK(measure_on_2(CCT_BCAST, "binomial", 64, opts).reps == opts.min_reps);
  }
}

TEST_CASE("a candidate slow at one size is warmed up once at the next", "[tuner]") {
  // With a budget no call fits, every call is slow: the first measurement
  // makes warmup + kFirstRound calls, the next of the same candidate 1 +
  // kFirstRound; another candidate, not measured before, warmup again.
  const cct::tuner::MeasureOptions opts{.warmup = 5, .min_reps = 6, .budget_s = 1e-12};
  const cct::tuner::Call small{CCT_BCAST, 64}, large{CCT_BCAST, 4096};
  const cct::tuner::Call calls[] = {small, large};
  const cct::test::SharedArray<uint64_t> counted(6);
  REQUIRE(cct::test::on_ranks(
              2,
              [&](cct::Communicator& comm) {
                cct::tuner::Measurer measurer(cct::test::registry(), comm, calls, opts);
                cct::tuner::RunningCandidate slot;
                measurer.note_running_in(&slot);
                const cct::AlgorithmEntry& binomial = cct::test::algorithm(CCT_BCAST, "binomial");
                const cct::AlgorithmEntry& knomial = cct::test::algorithm(CCT_BCAST, "knomial");
                cct::Plan first(binomial, comm, binomial.default_params());
                cct::Plan other(knomial, comm, knomial.default_params());
                measurer.measure(first, small);
                counted[3 * comm.rank()] = slot.calls;
                measurer.measure(first, large);
                counted[3 * comm.rank() + 1] = slot.calls;
                measurer.measure(other, large);
                counted[3 * comm.rank() + 2] = slot.calls;
              },
              kTimeoutS) == "");
  const uint64_t first_round = cct::tuner::kFirstRound;
  for (int rank = 0; rank < 2; ++rank) {
    INFO("rank " << rank);
    CHECK(counted[3 * rank] == 5 + first_round);
    CHECK(counted[3 * rank + 1] - counted[3 * rank] == 1 + first_round);
    CHECK(counted[3 * rank + 2] - counted[3 * rank + 1] == 5 + first_round);
  }
}

TEST_CASE("buffers fit the largest footprint of the calls given", "[tuner]") {
  using cct::tuner::footprint;
  const auto is = [](cct::tuner::Footprint f, std::size_t send, std::size_t recv) {
    return f.send == send && f.recv == recv;
  };
  CHECK(is(footprint({CCT_BARRIER, 0}, 4), 0, 0));
  CHECK(is(footprint({CCT_BCAST, 16}, 4), 0, 16));
  CHECK(is(footprint({CCT_GATHER, 16}, 4), 16, 64));
  CHECK(is(footprint({CCT_SCATTER, 16}, 4), 64, 16));
  CHECK(is(footprint({CCT_ALLREDUCE, 16}, 4), 16, 16));
  CHECK(is(footprint({CCT_ALLGATHER, 16}, 4), 16, 64));
  CHECK(is(footprint({CCT_ALLTOALL, 16}, 4), 64, 64));
  // Vector collectives: the heaviest rank in the heaviest pattern. Skewed
  // on 4 ranks gives rank 0 three blocks, so it sends 3 * 4 blocks in an
  // alltoallv and receives 3 in a scatterv.
  using cct::CountPattern;
  const std::vector<CountPattern> both{CountPattern::kEqual, CountPattern::kSkewed};
  CHECK(is(footprint({CCT_ALLTOALLV, 16}, 4), 64, 64));
  CHECK(is(footprint({CCT_ALLTOALLV, 16, both}, 4), 192, 64));
  CHECK(is(footprint({CCT_SCATTERV, 16, both}, 4), 64, 48));
  CHECK(is(footprint({CCT_ALLTOALL, 16, both}, 4), 64, 64));  // no counts: no patterns

  const cct::AlgorithmEntry& alg = cct::test::algorithm(CCT_BCAST, "binomial");
  REQUIRE(cct::test::on_ranks(
              2,
              [&](cct::Communicator& comm) {
                const cct::tuner::Call planned[] = {{CCT_BCAST, 1024}, {CCT_GATHER, 16}};
                cct::tuner::Measurer measurer(cct::test::registry(), comm, planned, {});
                cct::Plan plan(alg, comm, alg.default_params());
                // Refused before running: the plan does not matter.
                for (const cct::tuner::Call too_big :
                     {cct::tuner::Call{CCT_BCAST, 2048}, cct::tuner::Call{CCT_ALLTOALL, 1024}}) {
                  bool refused = false;
                  try {
                    measurer.measure(plan, too_big);
                  } catch (const cct::Error& e) {
                    refused = e.status() == CCT_ERR_INVALID_ARG;
                  }
                  cct::test::expect(refused, "a call larger than the buffers was not refused");
                }
              },
              kTimeoutS) == "");
}

TEST_CASE("results CSV: round trip, resume keys, crash remains", "[tuner]") {
  const std::string path = temp_path("results.csv");
  std::filesystem::remove(path);
  using cct::tuner::Stage;
  const std::vector<ResultRow> rows{
      sample_row(1, "radix=4", Stage::kPruned), sample_row(65536, "radix=8", Stage::kCrossover),
      sample_row(0, "", Stage::kCheck), sample_row(0, "", Stage::kRecheck)};
  {
    cct::tuner::ResultsWriter writer(path);
    for (const ResultRow& row : rows) writer.append(row);
  }
  std::vector<ResultRow> back = cct::tuner::read_results(path);
  REQUIRE(back.size() == 4);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CHECK(back[i].key() == rows[i].key());
    CHECK(back[i].result.median_s == rows[i].result.median_s);
    CHECK(back[i].result.max_s == rows[i].result.max_s);
    CHECK(back[i].result.reps == rows[i].result.reps);
    CHECK(back[i].stage == rows[i].stage);
  }
  CHECK(cct::tuner::finished_keys(back) ==
        std::set<std::string>{"bcast,shm,1,4,1,knomial,radix=4",
                              "bcast,shm,1,4,65536,knomial,radix=8", "bcast,shm,1,4,0,knomial,",
                              "bcast,shm,1,4,0,knomial, recheck"});

  SECTION("a partial last line is ignored, then cut off by the next writer") {
    write_text(path, "bcast,shm,1,4,2,knomial,radix=4,1.2e-0", std::ios::app);
    CHECK(cct::tuner::read_results(path).size() == 4);
    cct::tuner::ResultsWriter(path).append(sample_row(2, "radix=2"));
    back = cct::tuner::read_results(path);
    REQUIRE(back.size() == 5);
    CHECK(back[4].key() == "bcast,shm,1,4,2,knomial,radix=2");
    CHECK(read_text(path).find("1.2e-0\n") == std::string::npos);
  }
  SECTION("a malformed row names the file and line") {
    write_text(path, "bcast,shm,1,4,2,knomial,radix=4,oops,1,1,3,final,,,,\n", std::ios::app);
    CHECK_THROWS_WITH(cct::tuner::read_results(path), Catch::Contains(path + ":6: bad seconds"));
  }
  SECTION("an unknown stage is refused with the stages there are") {
    write_text(path, "bcast,shm,1,4,2,knomial,radix=4,1,1,1,3,later,,,,\n", std::ios::app);
    CHECK_THROWS_WITH(cct::tuner::read_results(path),
                      Catch::Contains(path + ":6: bad stage 'later' (expected pruned, final") &&
                          Catch::EndsWith("rooted or recheck)"));
  }
  SECTION("a results file of the 10-column format is refused by its header") {
    write_text(path, "collective,transport,np,bytes,algorithm,params,median_s,min_s,max_s,reps\n",
               std::ios::trunc);
    CHECK_THROWS_WITH(cct::tuner::read_results(path), Catch::Contains(path + ":1: not a results"));
  }
  SECTION("a file that is not a results file is refused") {
    write_text(path, "a,b,c\n", std::ios::trunc);
    CHECK_THROWS_WITH(cct::tuner::read_results(path), Catch::Contains(path + ":1:"));
    CHECK_THROWS_WITH(cct::tuner::ResultsWriter(path), Catch::Contains(path + ":1:"));
  }
  std::filesystem::remove(path);
  CHECK(cct::tuner::read_results(path).empty());
}

TEST_CASE(
    "results CSV: parameters in the CCT_FORCE form, quoted, and the older form with semicolons",
    "[tuner]") {
  const std::string path = temp_path("results-params.csv");
  std::filesystem::remove(path);
  ResultRow two_params = sample_row(64, "level=1,chunk=8k");
  two_params.algorithm = "two_level";
  cct::tuner::ResultsWriter(path).append(two_params);
  CHECK(read_text(path) == std::string(cct::tuner::kResultsHeader) +
                               "\nbcast,shm,1,4,64,two_level,\"level=1,chunk=8k\",1.25e-06,1e-06,"
                               "3.00001e-05,17,final,,,,\n");
  // What a row prints pastes into CCT_FORCE.
  CHECK(cct::tuner::read_results(path).at(0).choice() == "two_level(level=1,chunk=8k)");
  CHECK(sample_row(64, "").choice() == "knomial");

  SECTION("rows of the older form read as the current one, so --resume knows them") {
    write_text(path, "bcast,shm,1,4,128,two_level,level=1;chunk=8k,1,1,1,3,final,,,,\n",
               std::ios::app);
    const std::vector<ResultRow> back = cct::tuner::read_results(path);
    REQUIRE(back.size() == 2);
    CHECK(back[1].params == "level=1,chunk=8k");
  }
  SECTION("a quote left open names the file and line") {
    write_text(path, "bcast,shm,1,4,128,two_level,\"level=1,1,1,1,3,final\n", std::ios::app);
    CHECK_THROWS_WITH(cct::tuner::read_results(path),
                      Catch::Contains(path + ":3: a quoted field is not closed"));
  }
  SECTION("too many columns name the file and line") {
    write_text(path, "bcast,shm,1,4,128,two_level,level=1,chunk=8k,1,1,1,3,final,,,,\n",
               std::ios::app);
    CHECK_THROWS_WITH(cct::tuner::read_results(path),
                      Catch::Contains(path + ":3: too many columns"));
  }
  std::filesystem::remove(path);
}

TEST_CASE("results CSV: the nodes column round-trips and is checked", "[tuner]") {
  const std::string path = temp_path("results-nodes.csv");
  std::filesystem::remove(path);
  ResultRow two_nodes = sample_row(64, "radix=4");
  two_nodes.nodes = 2;
  two_nodes.np = 8;
  cct::tuner::ResultsWriter(path).append(two_nodes);
  CHECK(read_text(path) ==
        std::string(cct::tuner::kResultsHeader) +
            "\nbcast,shm,2,8,64,knomial,radix=4,1.25e-06,1e-06,3.00001e-05,17,final,,,,\n");
  const std::vector<ResultRow> back = cct::tuner::read_results(path);
  REQUIRE(back.size() == 1);
  CHECK((back[0].nodes == 2 && back[0].np == 8));
  CHECK(back[0].key() == "bcast,shm,2,8,64,knomial,radix=4");
  // The same point on one node is another point.
  CHECK(back[0].key() != sample_row(64, "radix=4").key());
  // A point's row carries its shape.
  const cct::tuner::Point point{.algorithm = &cct::test::algorithm(CCT_BCAST, "knomial"),
                                .params = {4},
                                .transport = "shm",
                                .nodes = 2,
                                .np = 8,
                                .call = {CCT_BCAST, 64}};
  CHECK(point.row({}).key() == back[0].key());

  SECTION("a communicator has at least one rank per node") {
    write_text(path, "bcast,shm,4,2,64,knomial,radix=4,1,1,1,3,final,,,,\n", std::ios::app);
    CHECK_THROWS_WITH(cct::tuner::read_results(path),
                      Catch::Contains(path + ":3: np 2 is below nodes 4"));
  }
  SECTION("nodes 0 is refused") {
    write_text(path, "bcast,shm,0,2,64,knomial,radix=4,1,1,1,3,final,,,,\n", std::ios::app);
    CHECK_THROWS_WITH(cct::tuner::read_results(path), Catch::Contains(path + ":3: bad nodes '0'"));
  }
  std::filesystem::remove(path);
}

TEST_CASE("results CSV: a file without the nodes column", "[tuner]") {
  const std::string dir = temp_path("old-results");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directory(dir);
  const std::string path = dir + "/results.csv";
  const std::string old_rows =
      "bcast,shm,4,1,knomial,radix=4,1.25e-06,1e-06,3.00001e-05,17,pruned\n"
      "bcast,shm,4,65536,knomial,radix=8,2.5e-05,2e-05,3e-05,9,final\n";
  write_text(path, std::string(cct::tuner::kResultsHeaderSingleNode) + "\n" + old_rows,
             std::ios::trunc);

  SECTION("reads as nodes 1") {
    const std::vector<ResultRow> back = cct::tuner::read_results(path);
    REQUIRE(back.size() == 2);
    CHECK((back[0].nodes == 1 && back[0].np == 4 && back[0].bytes == 1));
    CHECK(back[1].key() == "bcast,shm,1,4,65536,knomial,radix=8");
    CHECK(back[1].result.reps == 9);
    CHECK(back[1].stage == cct::tuner::Stage::kFinal);
  }
  SECTION("is converted before a writer appends, its rows kept as they were") {
    write_text(path, "bcast,shm,4,2,knomial,radix=4,1.2e-0", std::ios::app);  // a crash's remains
    ResultRow two_nodes = sample_row(64, "radix=4");
    two_nodes.nodes = 2;
    cct::tuner::ResultsWriter(path).append(two_nodes);
    CHECK(read_text(path) ==
          std::string(cct::tuner::kResultsHeader) +
              "\nbcast,shm,1,4,1,knomial,radix=4,1.25e-06,1e-06,3.00001e-05,17,pruned,,,,\n"
              "bcast,shm,1,4,65536,knomial,radix=8,2.5e-05,2e-05,3e-05,9,final,,,,\n"
              "bcast,shm,2,4,64,knomial,radix=4,1.25e-06,1e-06,3.00001e-05,17,final,,,,\n");
    CHECK(cct::tuner::read_results(path).size() == 3);
    // Through a temporary file beside it, which is gone.
    CHECK(std::distance(std::filesystem::directory_iterator(dir),
                        std::filesystem::directory_iterator()) == 1);
  }
  SECTION("a malformed row stops the conversion, naming its line; the file stays") {
    write_text(path, "bcast,shm,4,2,knomial,radix=4,1,1,1,3\n", std::ios::app);
    const std::string before = read_text(path);
    CHECK_THROWS_WITH(cct::tuner::ResultsWriter(path),
                      Catch::Contains(path + ":4: too few columns"));
    CHECK(read_text(path) == before);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("parameters print as the SDK names them and parse back", "[tuner]") {
  const cct_algorithm_desc& chain = *cct::test::algorithm(CCT_BCAST, "chain").desc;
  const std::vector<int64_t> values{32768};
  CHECK(cct::tuner::format_params(chain, values) == "segment=32k");
  CHECK(cct::tuner::parse_params(chain, "segment=32k") == values);
  CHECK(cct::tuner::parse_params(chain, "segment=32768") == values);
  const cct_algorithm_desc& two_level = *cct::test::algorithm(CCT_BCAST, "two_level").desc;
  const std::vector<int64_t> level_chunk = cct::tuner::parse_params(two_level, "level=1,chunk=8k");
  CHECK(cct::tuner::format_params(two_level, level_chunk) == "level=1,chunk=8k");
  CHECK(cct::tuner::parse_params(two_level, "chunk=8k;level=1") == level_chunk);
  CHECK_THROWS_WITH(cct::tuner::parse_params(chain, "radix=2"), Catch::Contains("unknown item"));
  CHECK_THROWS_WITH(cct::tuner::parse_params(chain, ""), Catch::Contains("segment is missing"));
  const cct_algorithm_desc& binomial = *cct::test::algorithm(CCT_BCAST, "binomial").desc;
  CHECK(cct::tuner::format_params(binomial, {}).empty());
  CHECK(cct::tuner::parse_params(binomial, "").empty());
}

TEST_CASE("message sizes per collective, full and quick", "[tuner]") {
  using cct::tuner::message_sizes;
  CHECK(message_sizes(CCT_BARRIER, 1, 1 << 20, false) == std::vector<int64_t>{0});
  CHECK(message_sizes(CCT_BCAST, 1, 1 << 20, false).size() == 21);
  CHECK(message_sizes(CCT_BCAST, 0, 8, false) == std::vector<int64_t>{1, 2, 4, 8});
  CHECK(message_sizes(CCT_BCAST, 3, 40, false) == std::vector<int64_t>{4, 8, 16, 32});
  CHECK(message_sizes(CCT_BCAST, 1, 1 << 20, true) ==
        std::vector<int64_t>{1, 16, 256, 4096, 65536, 1 << 20});
  CHECK(message_sizes(CCT_ALLTOALL, 1, 1 << 10, true) == std::vector<int64_t>{1, 16, 256, 1024});
  // A reduction from one int32 up, unless the largest size is smaller.
  CHECK(message_sizes(CCT_ALLREDUCE, 1, 16, false) == std::vector<int64_t>{4, 8, 16});
  CHECK(message_sizes(CCT_REDUCE_SCATTER, 1, 1 << 10, true) == std::vector<int64_t>{4, 64, 1024});
  CHECK(message_sizes(CCT_SCAN, 1, 2, false) == std::vector<int64_t>{1, 2});
}

TEST_CASE("the largest size: a call's buffers within --max-rank-bytes", "[tuner]") {
  using cct::tuner::largest_size;
  const cct::tuner::SpaceFilter filter;  // up to 4M, 128M a rank
  // alltoall on np ranks: np blocks sent, np received.
  CHECK(largest_size(CCT_ALLTOALL, 16, filter) == 4 << 20);  // 128M
  CHECK(largest_size(CCT_ALLTOALL, 32, filter) == 2 << 20);  // 4M would be 256M
  CHECK(largest_size(CCT_ALLTOALL, 128, filter) == 512 << 10);
  // allgather: one block sent, np received (its own included).
  CHECK(largest_size(CCT_ALLGATHER, 128, filter) == 512 << 10);  // 1M: 129M
  CHECK(largest_size(CCT_ALLGATHER, 64, filter) == 1 << 20);     // 65M
  // One vector whatever the ranks.
  CHECK(largest_size(CCT_BCAST, 1024, filter) == 4 << 20);
  CHECK(largest_size(CCT_ALLREDUCE, 1024, filter) == 4 << 20);
  // --max-bytes that is no power of two: its power of two below.
  CHECK(largest_size(CCT_BCAST, 4, {.max_bytes = 3 << 20}) == 2 << 20);
  // Never below the smallest size, whatever the limit.
  const cct::tuner::SpaceFilter tiny{.min_bytes = 3, .max_rank_bytes = 1};
  CHECK(largest_size(CCT_ALLTOALL, 64, tiny) == 4);
}

TEST_CASE("parameter grids: candidates, ranges, the cap, quick", "[tuner]") {
  using cct::tuner::parameter_grid;
  const cct_algorithm_desc& knomial = *cct::test::algorithm(CCT_BCAST, "knomial").desc;
  CHECK(parameter_grid(knomial, false, 64).size() == 4);
  CHECK(parameter_grid(knomial, true, 64) == std::vector<std::vector<int64_t>>{{4}});

  const cct_param_desc params[] = {
      {.name = "a", .type = CCT_PARAM_INT, .default_value = 5, .lo = 1, .hi = 16, .step = 1},
      {.name = "b",
       .type = CCT_PARAM_BYTES,
       .default_value = 4096,
       .lo = 1024,
       .hi = 1 << 20,
       .step = 2,
       .step_kind = CCT_STEP_MUL},
      {.name = "c", .type = CCT_PARAM_INT, .default_value = 7, .lo = 0, .hi = 100000, .step = 1}};
  CHECK(cct::tuner::parameter_values(params[0]).size() == 16);
  CHECK(cct::tuner::parameter_values(params[1]).size() == 11);
  const std::vector<int64_t> sampled = cct::tuner::parameter_values(params[2]);
  CHECK(sampled.size() <= 65);
  CHECK(std::find(sampled.begin(), sampled.end(), 7) != sampled.end());

  const cct_algorithm_desc alg{.name = "made_up", .params = params, .nparams = 3};
  const auto grid = parameter_grid(alg, false, 64);
  CHECK(grid.size() <= 64);
  CHECK(std::find(grid.begin(), grid.end(), std::vector<int64_t>{5, 4096, 7}) != grid.end());
  CHECK(parameter_grid(alg, true, 64) == std::vector<std::vector<int64_t>>{{5, 4096, 7}});

  // Four parameters of three values each (81 > 64): a three-value list
  // with its default in the middle thins to the default alone.
  const cct_algorithm_desc& pdbp = *cct::test::algorithm(CCT_ALLTOALL, "pdbp").desc;
  const auto pdbp_grid = parameter_grid(pdbp, false, 64);
  CHECK(pdbp_grid.size() == 27);
  std::vector<int64_t> defaults;
  for (uint32_t i = 0; i < pdbp.nparams; ++i) defaults.push_back(pdbp.params[i].default_value);
  CHECK(std::find(pdbp_grid.begin(), pdbp_grid.end(), defaults) != pdbp_grid.end());
}

TEST_CASE("points on a communicator: counts, quick, skipped with a reason", "[tuner]") {
  const auto space_on = [](int ranks, const cct::tuner::SpaceFilter& filter) {
    const cct::test::SharedArray<std::size_t> shared(3);
    std::string skip_reason;
    REQUIRE(cct::test::on_ranks(
                ranks,
                [&](cct::Communicator& comm) {
                  const auto space = cct::tuner::enumerate(cct::test::registry(), comm, filter);
                  shared[0] = space.points.size();
                  shared[1] = space.skipped.size();
                  shared[2] = space.skipped.empty() ? 0 : space.skipped[0].points;
                  for (const auto& p : space.points)
                    cct::test::expect(p.nodes == comm.nodes() && p.row({}).nodes == comm.nodes(),
                                      "a point not of the communicator's nodes");
                  for (const auto& skip : space.skipped)
                    cct::test::expect(skip.reason == "needs a power-of-two number of ranks, not 3",
                                      "unexpected reason: " + skip.reason);
                },
                kTimeoutS) == "");
    const std::vector<std::size_t> counts{shared[0], shared[1], shared[2]};
    return counts;
  };
  cct::tuner::SpaceFilter filter{
      .collectives = {"bcast"}, .algorithms = {"knomial", "binomial"}, .max_bytes = 1024};
  // knomial: 4 radices x 11 sizes; binomial: no parameters, 11 sizes.
  CHECK(space_on(2, filter) == std::vector<std::size_t>{55, 0, 0});
  filter.quick = true;  // sizes 1, 16, 256, 1024; default radix only
  CHECK(space_on(2, filter) == std::vector<std::size_t>{8, 0, 0});
  filter.transports = {"mpi"};
  CHECK(space_on(2, filter) == std::vector<std::size_t>{0, 0, 0});
  // Outside an MPI program the library's own call is not offered, and not
  // reported as a skip either.
  const cct::tuner::SpaceFilter library{.collectives = {"bcast"}, .algorithms = {"mpi"}};
  CHECK(space_on(2, library) == std::vector<std::size_t>{0, 0, 0});

  const cct::tuner::SpaceFilter allgather{
      .collectives = {"allgather"}, .algorithms = {"recursive_doubling"}, .max_bytes = 64};
  CHECK(space_on(3, allgather) == std::vector<std::size_t>{0, 1, 7});
  CHECK(space_on(4, allgather) == std::vector<std::size_t>{7, 0, 0});
}

TEST_CASE("points on a communicator: sizes within --max-rank-bytes, the limit noted", "[tuner]") {
  // alltoall on 4 ranks: 8 blocks a call, so 512 bytes a rank stops it at
  // 64; bcast's one buffer at 512.
  const cct::tuner::SpaceFilter filter{.collectives = {"alltoall", "bcast"},
                                       .algorithms = {"pairwise", "binomial"},
                                       .max_bytes = 1024,
                                       .max_rank_bytes = 512};
  const cct::test::SharedArray<int64_t> shared(4);
  REQUIRE(cct::test::on_ranks(
              4,
              [&](cct::Communicator& comm) {
                const auto space = cct::tuner::enumerate(cct::test::registry(), comm, filter);
                for (const auto& p : space.points)
                  if (p.call.collective == CCT_ALLTOALL)
                    shared[0] = std::max(shared[0], p.call.bytes);
                  else
                    shared[1] = std::max(shared[1], p.call.bytes);
                shared[2] = static_cast<int64_t>(space.limited.size());
                for (const cct::tuner::SizeLimit& limit : space.limited)
                  if (limit.collective == "alltoall") shared[3] = limit.largest;
              },
              kTimeoutS) == "");
  CHECK(shared[0] == 64);
  CHECK(shared[1] == 512);
  CHECK(shared[2] == 2);
  CHECK(shared[3] == 64);
}

TEST_CASE("progress: plain lines off a terminal, one rewritten line on it", "[tuner]") {
  CHECK(cct::tuner::format_duration(9.4) == "9s");
  CHECK(cct::tuner::format_duration(247) == "4m07s");
  CHECK(cct::tuner::format_duration(7380) == "2h03m");
  std::ostringstream plain;
  cct::tuner::Progress log(plain, 2, false);
  log.start("bcast shm np=2 1k binomial");
  log.finish_one();
  log.start("bcast shm np=2 2k binomial");
  log.finish_one();
  log.close();
  CHECK(plain.str().rfind(
            "[1/2] bcast shm np=2 1k binomial\n[2/2] bcast shm np=2 2k binomial  ETA ", 0) == 0);
  CHECK(plain.str().find('\r') == std::string::npos);
  std::ostringstream tty;
  cct::tuner::Progress line(tty, 1, true);
  line.start("barrier shm np=2 0 dissemination");
  line.finish_one();
  line.close();
  CHECK(tty.str() == "\r[1/1] barrier shm np=2 0 dissemination\033[K\n");
  CHECK(log.done() == 2);
  // Off a terminal, a long run logs the first point and one line per tenth.
  std::ostringstream long_log;
  cct::tuner::Progress hundred(long_log, 100, false);
  for (int i = 0; i < 100; ++i) {
    hundred.start("point");
    hundred.finish_one();
  }
  const std::string text = long_log.str();
  CHECK(std::count(text.begin(), text.end(), '\n') == 11);
  CHECK(text.rfind("[1/100] point\n[10/100] point  ETA ", 0) == 0);
}

TEST_CASE("the noise probe counts other runnable work and says so", "[tuner]") {
  // Two threads spinning beside the probe are other work it must see (the
  // converse, a quiet machine, cannot be asserted while other tests run).
  std::atomic<bool> stop{false};
  std::vector<std::thread> others;
  for (int i = 0; i < 2; ++i)
    others.emplace_back([&] {
      while (!stop.load(std::memory_order_relaxed)) {
      }
    });
  const cct::tuner::Noise noise = cct::tuner::probe_noise(1);
  stop = true;
  for (std::thread& t : others) t.join();
  INFO(noise.describe());
  CHECK(noise.other_tasks >= 2);
  CHECK(noise.busy());
  const cct::tuner::Noise quiet{.other_tasks = 0, .lost = 0.12};
  CHECK(quiet.describe() == "0 other runnable tasks, 12% of the probe's time lost");
  CHECK(cct::tuner::noise_warning(quiet, quiet).empty());
  CHECK(cct::tuner::noise_warning(quiet, noise).find("tune again on a quiet machine") !=
        std::string::npos);
  CHECK(cct::tuner::noise_record(quiet, quiet) ==
        "before: 0 other runnable tasks, 12% of the probe's time lost; after: 0 other runnable "
        "tasks, 12% of the probe's time lost");
}

TEST_CASE("count patterns: blocks of one size key, skewed as documented, pairs that match",
          "[tuner]") {
  using cct::CountPattern;
  const auto counts = [](CountPattern p, int n, std::size_t average) {
    std::vector<std::size_t> out;
    for (int r = 0; r < n; ++r) out.push_back(cct::pattern_count(p, r, n, average));
    return out;
  };
  using Counts = std::vector<std::size_t>;
  CHECK(counts(CountPattern::kSkewed, 1, 6) == Counts{6});
  CHECK(counts(CountPattern::kSkewed, 2, 6) == Counts{12, 0});
  CHECK(counts(CountPattern::kSkewed, 3, 6) == Counts{12, 0, 6});
  CHECK(counts(CountPattern::kSkewed, 4, 6) == Counts{18, 0, 6, 0});
  // Rank 0 capped at 4 averages; 24 left for 3 even ranks.
  CHECK(counts(CountPattern::kSkewed, 8, 6) == Counts{24, 0, 8, 0, 8, 0, 8, 0});
  // What does not divide goes to rank 2: 4 left for 3 even ranks.
  CHECK(counts(CountPattern::kSkewed, 8, 1) == Counts{4, 0, 2, 0, 1, 0, 1, 0});
  CHECK(counts(CountPattern::kEqual, 3, 5) == Counts{5, 5, 5});
  CHECK(cct::count_patterns_label({CountPattern::kEqual, CountPattern::kSkewed}) == "equal+skewed");
  CHECK(cct::parse_count_patterns("equal+skewed") ==
        std::vector<CountPattern>{CountPattern::kEqual, CountPattern::kSkewed});
  CHECK_FALSE(cct::parse_count_patterns("equal+"));
  CHECK_FALSE(cct::parse_count_patterns("lopsided"));

  for (const cct::CollectiveInfo& c : cct::collectives()) {
    if (!c.vector()) continue;
    for (int n = 1; n <= 9; ++n)
      for (CountPattern p : {CountPattern::kEqual, CountPattern::kSkewed}) {
        const std::string label = std::string(c.name) + " on " + std::to_string(n) + " ranks, " +
                                  cct::count_pattern_name(p);
        std::vector<cct::PatternBlocks> blocks(static_cast<std::size_t>(n));
        std::vector<cct_coll_args> args;
        for (int r = 0; r < n; ++r) {
          cct_coll_args a = cct::make_call(c.id, nullptr, nullptr, 7, CCT_INT32, CCT_SUM, 0);
          args.push_back(blocks[r].fill(a, n, r, p));
        }
        INFO(label);
        // The call keys as equal blocks of 7 would: 7 int32s. Where no rank
        // knows the key alone, the ranks' shares add up to it.
        std::size_t key = cct::message_bytes(args[0], n);
        if (c.key_parts != nullptr) {
          key = 0;
          for (int r = 0; r < n; ++r) key += cct::message_bytes(args[r], n);
          key /= c.key_parts(n);
        }
        CHECK(key == 28);
        for (int r = 0; r < n; ++r) {
          CHECK(args[r].count == cct::pattern_count(p, r, n, 7));
          if (args[r].recvcounts == nullptr || args[r].sendcounts == nullptr) continue;
          // alltoallv: what i sends j is what j receives from i.
          for (int j = 0; j < n; ++j) CHECK(args[r].sendcounts[j] == args[j].recvcounts[r]);
        }
      }
  }
}

TEST_CASE("results CSV: the counts column of the vector collectives", "[tuner]") {
  const std::string path = temp_path("results-counts.csv");
  std::filesystem::remove(path);
  ResultRow row = sample_row(64, "");
  row.collective = "alltoallv";
  row.algorithm = "linear";
  row.counts = "equal+skewed";
  cct::tuner::ResultsWriter(path).append(row);
  std::vector<ResultRow> back = cct::tuner::read_results(path);
  REQUIRE(back.size() == 1);
  CHECK(back[0].counts == "equal+skewed");
  CHECK(back[0].key() == "alltoallv,shm,1,4,64,linear, [equal+skewed]");
  // A failed point's key keeps its counts, so the relaunched job skips it.
  CHECK(cct::tuner::failed_row(back[0].key(), "crashed").counts == "equal+skewed");

  SECTION("bad counts, and counts on a collective without them, are refused") {
    write_text(path, "alltoallv,shm,1,4,128,linear,,1,1,1,3,final,,lopsided,,\n", std::ios::app);
    CHECK_THROWS_WITH(cct::tuner::read_results(path),
                      Catch::Contains(path + ":3: bad counts 'lopsided'"));
    write_text(path,
               std::string(cct::tuner::kResultsHeader) +
                   "\nbcast,shm,1,4,128,binomial,,1,1,1,3,final,,equal,,\n",
               std::ios::trunc);
    CHECK_THROWS_WITH(cct::tuner::read_results(path),
                      Catch::Contains(path + ":2: counts 'equal' on bcast"));
  }
  SECTION("a file from before the column: vector rows were measured in equal blocks") {
    write_text(path,
               std::string(cct::tuner::kResultsHeaderNoCounts) +
                   "\nalltoallv,shm,1,4,64,linear,,1e-06,1e-06,1e-06,5,final,\n"
                   "bcast,shm,1,4,64,binomial,,1e-06,1e-06,1e-06,5,final,\n",
               std::ios::trunc);
    back = cct::tuner::read_results(path);
    REQUIRE(back.size() == 2);
    CHECK(back[0].counts == "equal");
    CHECK(back[1].counts.empty());
  }
  std::filesystem::remove(path);
}

TEST_CASE("results CSV: a reduction's own element type round-trips, keyed apart, and is checked",
          "[tuner]") {
  const std::string path = temp_path("results-datatype.csv");
  std::filesystem::remove(path);
  ResultRow typed = sample_row(64, "");
  typed.collective = "allreduce";
  typed.algorithm = "ring";
  typed.stage = cct::tuner::Stage::kTyped;
  typed.datatype = "double";
  cct::tuner::ResultsWriter(path).append(typed);
  CHECK(read_text(path) ==
        std::string(cct::tuner::kResultsHeader) +
            "\nallreduce,shm,1,4,64,ring,,1.25e-06,1e-06,3.00001e-05,17,typed,,,double,\n");
  const std::vector<ResultRow> back = cct::tuner::read_results(path);
  REQUIRE(back.size() == 1);
  CHECK(back[0].datatype == "double");
  CHECK(back[0].stage == cct::tuner::Stage::kTyped);
  // Another point than the same call measured in int32, whose key it extends.
  CHECK(back[0].key() == "allreduce,shm,1,4,64,ring, as double");
  // A point measured in a type of its own writes it, and a failed one keeps it.
  const cct::tuner::Point point{
      .algorithm = &cct::test::algorithm(CCT_ALLREDUCE, "ring"),
      .transport = "shm",
      .np = 4,
      .call = {.collective = CCT_ALLREDUCE, .bytes = 64, .dtype = CCT_DOUBLE}};
  CHECK(point.row({}, cct::tuner::Stage::kTyped).key() == back[0].key());
  CHECK(cct::tuner::measured_dtype(point.call) == CCT_DOUBLE);
  const ResultRow failed = cct::tuner::failed_row(back[0].key(), "crashed");
  CHECK((failed.datatype == "double" && failed.key() == back[0].key()));

  refused(path, "allreduce,shm,1,4,64,ring,,1,1,1,3,typed,,,half,", "bad datatype 'half'");
  refused(path, "bcast,shm,1,4,64,binomial,,1,1,1,3,typed,,,double,",
          "datatype 'double' on bcast, which is no reduction");
  refused(path, "allreduce,shm,1,4,64,ring,,1,1,1,3,typed,,,,", "a typed row names its datatype");
  refused(path, "allreduce,shm,1,4,64,ring,,1,1,1,3,final,,,float,",
          "a typed row names its datatype");

  SECTION("a file from before the column: every row in the type its size chose") {
    write_text(path,
               std::string(cct::tuner::kResultsHeaderNoDatatype) +
                   "\nallreduce,shm,1,4,64,ring,,1e-06,1e-06,1e-06,5,final,,\n",
               std::ios::trunc);
    const std::vector<ResultRow> old = cct::tuner::read_results(path);
    REQUIRE(old.size() == 1);
    CHECK(old[0].datatype.empty());
    CHECK(old[0].key() == "allreduce,shm,1,4,64,ring,");
  }
  std::filesystem::remove(path);
}

TEST_CASE("results CSV: a rooted collective's own root round-trips, keyed apart, and is checked",
          "[tuner]") {
  const std::string path = temp_path("results-root.csv");
  std::filesystem::remove(path);
  ResultRow rooted = sample_row(64, "radix=4");
  rooted.stage = cct::tuner::Stage::kRooted;
  rooted.root = 3;
  ResultRow reference = rooted;
  reference.root = 0;
  {
    cct::tuner::ResultsWriter writer(path);
    writer.append(rooted);
    writer.append(reference);
  }
  CHECK(read_text(path) ==
        std::string(cct::tuner::kResultsHeader) +
            "\nbcast,shm,1,4,64,knomial,radix=4,1.25e-06,1e-06,3.00001e-05,17,rooted,,,,3\n"
            "bcast,shm,1,4,64,knomial,radix=4,1.25e-06,1e-06,3.00001e-05,17,rooted,,,,0\n");
  const std::vector<ResultRow> back = cct::tuner::read_results(path);
  REQUIRE(back.size() == 2);
  CHECK((back[0].root == 3 && back[1].root == 0));
  CHECK(back[0].stage == cct::tuner::Stage::kRooted);
  // Root 0 of this step is another point than the final row at root 0.
  CHECK(back[0].key() == "bcast,shm,1,4,64,knomial,radix=4 at root 3");
  CHECK(back[1].key() == "bcast,shm,1,4,64,knomial,radix=4 at root 0");
  CHECK(sample_row(64, "radix=4").key() == "bcast,shm,1,4,64,knomial,radix=4");
  // A point at a root of its own writes it; a failed one keeps it.
  cct::tuner::Point point{.algorithm = &cct::test::algorithm(CCT_BCAST, "knomial"),
                          .params = {4},
                          .transport = "shm",
                          .np = 4,
                          .call = {.collective = CCT_BCAST, .bytes = 64}};
  point.call.root = 3;
  CHECK(point.row({}, cct::tuner::Stage::kRooted).key() == back[0].key());
  const ResultRow failed = cct::tuner::failed_row(back[0].key(), "crashed");
  CHECK((failed.root == 3 && failed.key() == back[0].key()));
  CHECK(cct::tuner::MeasuredCalls(point.call, 4, 1, 0).args().front().root == 3);

  refused(path, "bcast,shm,1,4,64,binomial,,1,1,1,3,rooted,,,,4",
          "bad root '4' (expected a rank below np 4)");
  refused(path, "bcast,shm,1,4,64,binomial,,1,1,1,3,rooted,,,,last", "bad root 'last'");
  refused(path, "allreduce,shm,1,4,64,ring,,1,1,1,3,rooted,,,,1",
          "root '1' on allreduce, which has no root");
  refused(path, "bcast,shm,1,4,64,binomial,,1,1,1,3,rooted,,,,", "a rooted row names its root");
  refused(path, "bcast,shm,1,4,64,binomial,,1,1,1,3,final,,,,2", "a rooted row names its root");

  SECTION("a file from before the column: every row at root 0") {
    write_text(path,
               std::string(cct::tuner::kResultsHeaderNoRoot) +
                   "\nbcast,shm,1,4,64,binomial,,1e-06,1e-06,1e-06,5,final,,,\n",
               std::ios::trunc);
    const std::vector<ResultRow> old = cct::tuner::read_results(path);
    REQUIRE(old.size() == 1);
    CHECK_FALSE(old[0].root.has_value());
    CHECK(old[0].key() == "bcast,shm,1,4,64,binomial,");
  }
  std::filesystem::remove(path);
}

TEST_CASE("results CSV: failed points, and files from before the note column", "[tuner]") {
  const std::string path = temp_path("results-failed.csv");
  std::filesystem::remove(path);
  const std::string key = "bcast,shm,1,2,4096,two_level,level=1,chunk=8k";
  const ResultRow failed = cct::tuner::failed_row(key, "rank 1 of 2 killed by signal 11");
  CHECK(failed.key() == key);
  CHECK(failed.stage == cct::tuner::Stage::kFailed);
  CHECK(failed.candidate() == "bcast,shm,1,2,two_level,level=1,chunk=8k");
  CHECK_THROWS_WITH(cct::tuner::failed_row("bcast,shm", "x"), Catch::Contains("not a point's key"));
  cct::tuner::ResultsWriter(path).append(failed);
  const std::vector<ResultRow> back = cct::tuner::read_results(path);
  REQUIRE(back.size() == 1);
  CHECK(back[0].note == "rank 1 of 2 killed by signal 11");
  CHECK(back[0].result.reps == 0);
  std::map<std::string, ResultRow> known{{back[0].key(), back[0]}};
  CHECK(cct::tuner::failed_candidates(known) == std::set<std::string>{failed.candidate()});

  SECTION("only a failed point may have no repetitions") {
    write_text(path, "bcast,shm,1,2,64,binomial,,1,1,1,0,final,,,,\n", std::ios::app);
    CHECK_THROWS_WITH(cct::tuner::read_results(path), Catch::Contains(path + ":3: bad reps '0'"));
  }
  SECTION("a file without the note column reads, and is converted before a writer appends") {
    write_text(path,
               std::string(cct::tuner::kResultsHeaderNoNote) +
                   "\nbcast,shm,1,2,64,binomial,,1e-06,1e-06,1e-06,5,final\n",
               std::ios::trunc);
    REQUIRE(cct::tuner::read_results(path).size() == 1);
    cct::tuner::ResultsWriter(path).append(failed);
    CHECK(read_text(path) == std::string(cct::tuner::kResultsHeader) +
                                 "\nbcast,shm,1,2,64,binomial,,1e-06,1e-06,1e-06,5,final,,,,\n"
                                 "bcast,shm,1,2,4096,two_level,\"level=1,chunk=8k\",0,0,0,0,failed,"
                                 "rank 1 of 2 killed by signal 11,,,\n");
  }
  std::filesystem::remove(path);
}

namespace {

// The figure of `first` at `bytes`, measured on 16 simulated DSPs, alone
// (after = nullptr) or after a measurement of `after` at `after_bytes`.
cct::tuner::PointResult simulated_point(cct_collective c, const char* first, const char* after,
                                        int64_t bytes) {
  cct::tuner::PointResult result;
  const cct::tuner::Call calls[] = {{c, bytes}, {CCT_ALLTOALL, 64 << 10}};
  cct::tuner::MeasureOptions opts;
  opts.min_reps = 5;
  opts.warmup = 1;
  REQUIRE(cct::test::on_simulated_ranks(16, "tree:4", [&](cct::Communicator& comm) {
            cct::tuner::Measurer measurer(cct::test::registry(), comm, calls, opts);
            if (after != nullptr) {
              const cct::AlgorithmEntry& noise = cct::test::algorithm(CCT_ALLTOALL, after);
              cct::Plan plan(noise, comm, noise.default_params());
              measurer.measure(plan, calls[1]);
            }
            const cct::AlgorithmEntry& alg = cct::test::algorithm(c, first);
            cct::Plan plan(alg, comm, alg.default_params());
            const cct::tuner::PointResult r = measurer.measure(plan, calls[0]);
            if (comm.rank() == 0) result = r;
          }) == "");
  return result;
}

}  // namespace

// On the simulator a measurement starts where nothing moves, every rank at
// one virtual time (cct_sim_ops.quiesce): the same candidate gets the same
// virtual time whatever was measured before it, and every repetition too
// (up to the rounding of virtual seconds to a double: 1e-9 of the figure,
// where what ran before used to change it by a factor, issue 29).
TEST_CASE("a simulated measurement does not depend on what was measured before it", "[tuner]") {
  const auto same = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::abs(b); };
  for (const auto& [c, name] : {std::pair{CCT_BCAST, "switch_bcast"},
                                {CCT_BCAST, "binomial"},
                                {CCT_ALLREDUCE, "recursive_doubling"}}) {
    INFO(name);
    const cct::tuner::PointResult alone = simulated_point(c, name, nullptr, 4);
    CHECK(alone.median_s > 0);
    CHECK(same(alone.min_s, alone.max_s));
    for (const char* before : {"linear_throttled", "pairwise"}) {
      INFO("after " << before);
      const cct::tuner::PointResult after = simulated_point(c, name, before, 4);
      CHECK(same(after.median_s, alone.median_s));
      CHECK(same(after.min_s, after.max_s));
    }
  }
}

// Simulated ranks are fibers of one process, timed in virtual time: they
// share one buffer set per size and index (256 DSPs take one rank's
// buffers), a rank's send and receive buffers apart.
TEST_CASE("simulated ranks share their measurement buffers", "[tuner]") {
  const cct::tuner::Call call{CCT_ALLTOALL, 1024};
  cct::tuner::MeasureOptions opts;
  opts.buffers = 2;
  std::vector<std::pair<const void*, const void*>> sets(2 * 8);
  REQUIRE(cct::test::on_simulated_ranks(8, "tree:2", [&](cct::Communicator& comm) {
            cct::tuner::Measurer measurer(cct::test::registry(), comm, {&call, 1}, opts);
            for (int set = 0; set < 2; ++set)
              sets[2 * comm.rank() + set] = measurer.buffer_set(set);
            // Every rank's measurer alive at once, as in a tuning job (a
            // fiber runs until it waits: without this, rank 0's would be
            // gone before rank 1's is made).
            const cct::AlgorithmEntry& barrier = cct::test::algorithm(CCT_BARRIER, "dissemination");
            cct::Plan(barrier, comm, barrier.default_params())
                .run(cct::make_call(CCT_BARRIER, nullptr, nullptr, 0, CCT_UINT8, CCT_SUM, 0, 1));
          }) == "");
  for (int rank = 1; rank < 8; ++rank)
    for (int set = 0; set < 2; ++set) CHECK(sets[2 * rank + set] == sets[set]);
  CHECK(sets[0].first != sets[0].second);
  CHECK(sets[0] != sets[1]);
}
