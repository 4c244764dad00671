// The tuner's search (successive halving, crossover bisection, off-grid
// checks, resume) driven by a fake measurer whose figures come from a cost
// model: no processes, no timing.
#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "support/harness.hpp"
#include "tuner/search.hpp"

namespace {

using cct::CountPattern;
using cct::tuner::Point;
using cct::tuner::PointResult;
using cct::tuner::ResultRow;
using cct::tuner::Stage;

// Microseconds: binomial wins small messages, chain large ones (they cross
// at 444 bytes), knomial is always far behind; for allreduce,
// recursive_doubling, rabenseifner and ring in their places.
double cost_us(const Point& p) {
  const double b = static_cast<double>(p.call.bytes);
  const std::string name = p.algorithm->desc->name;
  if (name == "binomial" || name == "recursive_doubling") return 1 + b / 100;
  if (name == "chain" || name == "rabenseifner") return 5 + b / 1000;
  return 10 + b / 50;
}

PointResult figure(const Point& p, int reps) {
  const double s = cost_us(p) * 1e-6;
  return {.median_s = s, .min_s = s, .max_s = s, .reps = reps};
}

// Records what the search asked for, and the rows a job would write.
class FakeMeasurer final : public cct::tuner::PointMeasurer {
 public:
  PointResult screen(const Point& p, int reps) override {
    screened.push_back(p.row({}).key());
    return figure(p, reps);
  }
  PointResult measure(const Point& p, Stage stage) override {
    const PointResult r = figure(p, 31);
    rows.push_back(p.row(r, stage));
    return r;
  }
  std::vector<PointResult> measure_together(std::span<const Point* const> points,
                                            Stage stage) override {
    if (cct::tuner::of_variant(stage)) together.push_back(points.size());
    std::vector<PointResult> results;
    for (const Point* p : points) results.push_back(measure(*p, stage));
    return results;
  }
  // Timed as programs call, the library's own call costs a twentieth of
  // the model's figure (as if the tuner's own timing overstated it); the
  // algorithms cost what the model says.
  std::vector<PointResult> confirm(std::span<const Point* const> points,
                                   std::span<const double> expected_s, Stage stage) override {
    std::vector<PointResult> results;
    for (std::size_t i = 0; i < points.size(); ++i) {
      PointResult r = figure(*points[i], 5);
      if (points[i]->algorithm->desc->name == std::string("mpi"))
        r.median_s = r.min_s = r.max_s = r.median_s / library_divisor;
      const double factor = confirmed_factor ? confirmed_factor(*points[i]) : 1;
      r.median_s *= factor, r.min_s *= factor, r.max_s *= factor;
      rows.push_back(points[i]->row(r, stage));
      expected.push_back(expected_s[i]);
      results.push_back(r);
    }
    return results;
  }
  void pruned(const Point& p, const PointResult& last) override {
    rows.push_back(p.row(last, Stage::kPruned));
  }
  std::string why_unusable(const Point&) override { return ""; }
  void planned(std::size_t points) override { extra += points; }

  // "bytes algorithm(params)" of the rows of one stage.
  std::vector<std::string> of(Stage stage) const {
    std::vector<std::string> out;
    for (const ResultRow& r : rows)
      if (r.stage == stage) out.push_back(std::to_string(r.bytes) + " " + r.choice());
    return out;
  }

  std::vector<std::string> screened;
  std::vector<ResultRow> rows;
  std::vector<double> expected;       // what confirm was told of each point
  std::vector<std::size_t> together;  // the size of each measure_together of variants
  std::size_t extra = 0;
  double library_divisor = 20;  // of the library's figure when confirmed
  // Of any point's figure when confirmed, if set.
  std::function<double(const Point&)> confirmed_factor;
};

// Six candidates at four sizes, ordered as plan_space orders them.
std::vector<Point> bcast_points() {
  const struct {
    const char* name;
    std::vector<int64_t> params;
  } candidates[] = {{"binomial", {}}, {"chain", {8192}}, {"chain", {32768}},
                    {"knomial", {2}}, {"knomial", {4}},  {"knomial", {8}}};
  std::vector<Point> points;
  for (const auto& c : candidates)
    for (int64_t bytes : {64, 256, 1024, 4096})
      points.push_back(Point{.algorithm = &cct::test::algorithm(CCT_BCAST, c.name),
                             .params = c.params,
                             .transport = "shm",
                             .np = 2,
                             .call = {CCT_BCAST, bytes}});
  return points;
}

// bcast_points and the library's own call at the same sizes.
std::vector<Point> with_library(std::vector<Point> points) {
  for (int64_t bytes : {64, 256, 1024, 4096})
    points.push_back(Point{.algorithm = &cct::test::algorithm(CCT_BCAST, "mpi"),
                           .transport = "shm",
                           .np = 2,
                           .call = {CCT_BCAST, bytes}});
  return points;
}

}  // namespace

TEST_CASE("search: halving prunes the slow half, finalists get the full timing", "[tuner]") {
  const std::vector<Point> points = bcast_points();
  FakeMeasurer m;
  cct::tuner::search_collective(points, {}, {.bisect_depth = 0, .check_every = 0}, m);
  // Every grid point ends once: 3 finalists and 3 pruned per size.
  REQUIRE(m.rows.size() == points.size());
  CHECK(m.of(Stage::kFinal).size() == 12);
  CHECK(m.of(Stage::kPruned) ==
        std::vector<std::string>{
            "64 knomial(radix=2)", "64 knomial(radix=4)", "64 knomial(radix=8)",
            "256 knomial(radix=2)", "256 knomial(radix=4)", "256 knomial(radix=8)",
            "1024 knomial(radix=2)", "1024 knomial(radix=4)", "1024 knomial(radix=8)",
            "4096 knomial(radix=2)", "4096 knomial(radix=4)", "4096 knomial(radix=8)"});
  // One round of 4 repetitions per size was enough.
  CHECK(m.screened.size() == 24);
}

TEST_CASE("search: the previous size's winner survives halving", "[tuner]") {
  // Without chain(32k). With one finalist, binomial wins 64 bytes alone; at
  // 4096 chain is fastest and binomial is pruned from the last round,
  // except that it won the size before. Finalists are timed in the space's
  // order (as a resumed run lists them), not in the screening's.
  std::vector<Point> points;
  for (const Point& p : bcast_points())
    if (p.params != std::vector<int64_t>{32768} && (p.call.bytes == 64 || p.call.bytes == 4096))
      points.push_back(p);
  FakeMeasurer m;
  cct::tuner::search_collective(points, {}, {.finalists = 1, .bisect_depth = 0, .check_every = 0},
                                m);
  CHECK(m.of(Stage::kFinal) ==
        std::vector<std::string>{"64 binomial", "4096 binomial", "4096 chain(segment=8k)"});
  // Three rounds at 64 (5, 3, then 2 candidates), growing repetitions.
  CHECK(m.screened.size() == 5 + 3 + 2 + 5 + 3 + 2);
}

TEST_CASE("search: the MPI library's own call is always a finalist", "[tuner]") {
  // `mpi` costs as much as knomial (the cost model's slowest), so halving
  // would prune it first; it stays, a finalist at every size beside the
  // three fastest.
  FakeMeasurer m;
  cct::tuner::search_collective(with_library(bcast_points()), {},
                                {.bisect_depth = 0, .check_every = 0}, m);
  const std::vector<std::string> finals = m.of(Stage::kFinal);
  for (const char* size : {"64 mpi", "256 mpi", "1024 mpi", "4096 mpi"})
    CHECK(std::find(finals.begin(), finals.end(), size) != finals.end());
  CHECK(finals.size() == 16);
}

TEST_CASE("search: the confirmation times the winner, runner-up and library, it decides",
          "[tuner]") {
  FakeMeasurer m;
  cct::tuner::search_collective(with_library(bcast_points()), {},
                                {.bisect_depth = 2, .check_every = 0, .confirm = true}, m);
  // At 64 B binomial won the full timing, chain(8k) came second (tied with
  // chain(32k), listed first), and the library is a finalist; at 256 B
  // the previous size's winner is the library, confirmed anyway.
  const std::vector<std::string> confirmed = m.of(Stage::kConfirm);
  REQUIRE(confirmed.size() == 12);
  CHECK(std::vector<std::string>(confirmed.begin(), confirmed.begin() + 3) ==
        std::vector<std::string>{"64 binomial", "64 chain(segment=8k)", "64 mpi"});
  // Each was told its full timing's figure: binomial at 64 B, 1.64 us.
  CHECK(m.expected.front() == Approx(1.64e-6));
  // Confirmed, the library wins every size (a twentieth of the model's
  // figure): no winner changes, so no crossover is measured, where the
  // full timings alone (binomial, then chain) would have bisected.
  CHECK(m.of(Stage::kCrossover).empty());
  // The checks are timed the same way: halfway between 256 and 1024, the
  // neighbours' contenders, each told its figure there.
  FakeMeasurer checked;
  cct::tuner::search_collective(with_library(bcast_points()), {},
                                {.bisect_depth = 0, .check_every = 2, .confirm = true}, checked);
  const std::vector<std::string> checks = checked.of(Stage::kCheck);
  CHECK(checks.size() == 4);
  CHECK(checked.expected.size() == checked.of(Stage::kConfirm).size() + checks.size());
  FakeMeasurer unconfirmed;
  cct::tuner::search_collective(with_library(bcast_points()), {},
                                {.bisect_depth = 2, .check_every = 0}, unconfirmed);
  CHECK(unconfirmed.of(Stage::kConfirm).empty());
  CHECK(unconfirmed.of(Stage::kCrossover).size() == 4);
}

TEST_CASE("search: a resumed run confirms nothing twice", "[tuner]") {
  const std::vector<Point> points = with_library(bcast_points());
  const cct::tuner::SearchOptions opts{.check_every = 0, .confirm = true};
  FakeMeasurer first;
  cct::tuner::search_collective(points, {}, opts, first);
  std::map<std::string, ResultRow> known;
  for (const ResultRow& r : first.rows) known[r.key()] = r;
  REQUIRE(known.size() == first.rows.size());  // a confirmation's key is its own
  FakeMeasurer again;
  cct::tuner::search_collective(points, known, opts, again);
  CHECK(again.rows.empty());
  // Without one confirmation (a crash), only that one is timed again.
  const auto lost = std::find_if(first.rows.begin(), first.rows.end(),
                                 [](const ResultRow& r) { return r.stage == Stage::kConfirm; });
  REQUIRE(lost != first.rows.end());
  known.erase(lost->key());
  FakeMeasurer resumed;
  cct::tuner::search_collective(points, known, opts, resumed);
  REQUIRE(resumed.rows.size() == 1);
  CHECK(resumed.rows[0].key() == lost->key());
}

TEST_CASE("search: a second job confirms again, the slower figure decides", "[tuner]") {
  const std::vector<Point> points = with_library(bcast_points());
  FakeMeasurer first;
  cct::tuner::search_collective(points, {}, {.bisect_depth = 2, .check_every = 0, .confirm = true},
                                first);
  std::map<std::string, ResultRow> known;
  for (const ResultRow& r : first.rows) known[r.key()] = r;
  // In the second job's processes the library costs what the model says:
  // its win in the first job does not hold, and the model's winners
  // (binomial, then chain) take the sizes back, so their crossover is
  // bisected now.
  FakeMeasurer second;
  second.library_divisor = 1;
  cct::tuner::search_collective(
      points, known, {.bisect_depth = 2, .check_every = 0, .confirm = true, .reconfirm = true},
      second);
  // The same contenders, and at 1024 B the previous size's winner, now
  // binomial (the library before): it is confirmed in this job alone.
  std::vector<std::string> again = first.of(Stage::kConfirm);
  again.insert(again.begin() + 8, "1024 binomial");
  CHECK(second.of(Stage::kReconfirm) == again);
  CHECK(second.of(Stage::kConfirm) == std::vector<std::string>{"1024 binomial"});
  CHECK(second.of(Stage::kFinal).empty());
  CHECK(first.of(Stage::kCrossover).empty());
  CHECK(second.of(Stage::kCrossover).size() == 4);
  // A third run on both jobs' rows repeats nothing.
  for (const ResultRow& r : second.rows) known[r.key()] = r;
  FakeMeasurer third;
  cct::tuner::search_collective(
      points, known, {.bisect_depth = 2, .check_every = 0, .confirm = true, .reconfirm = true},
      third);
  CHECK(third.rows.empty());
}

TEST_CASE("search: a second job times the checks again, and a third nothing", "[tuner]") {
  const std::vector<Point> points = with_library(bcast_points());
  const cct::tuner::SearchOptions first_job{.bisect_depth = 0, .check_every = 2, .confirm = true};
  FakeMeasurer first;
  cct::tuner::search_collective(points, {}, first_job, first);
  REQUIRE(first.of(Stage::kCheck).size() == 4);
  CHECK(first.of(Stage::kRecheck).empty());
  std::map<std::string, ResultRow> known;
  for (const ResultRow& r : first.rows) known[r.key()] = r;
  cct::tuner::SearchOptions second_job = first_job;
  second_job.reconfirm = true;
  FakeMeasurer second;
  cct::tuner::search_collective(points, known, second_job, second);
  CHECK(second.of(Stage::kRecheck) == first.of(Stage::kCheck));
  CHECK(second.of(Stage::kCheck).empty());
  for (const ResultRow& r : second.rows) known[r.key()] = r;
  FakeMeasurer third;
  cct::tuner::search_collective(points, known, second_job, third);
  CHECK(third.of(Stage::kRecheck).empty());
}

TEST_CASE("search: a vector collective's pick holds in each count pattern", "[tuner]") {
  // ring and the library's allgatherv, timed in equal and skewed blocks.
  std::vector<Point> points;
  for (const char* name : {"ring", "mpi"})
    for (int64_t bytes : {1024, 4096, 16384})
      points.push_back(
          Point{.algorithm = &cct::test::algorithm(CCT_ALLGATHERV, name),
                .transport = "shm",
                .np = 2,
                .call = {CCT_ALLGATHERV, bytes, {CountPattern::kEqual, CountPattern::kSkewed}}});
  // Confirmed, ring takes 0.8x the library's time in equal blocks and 0.9x
  // in skewed ones, except at 4 KiB: 1.5x in equal blocks and 0.3x in
  // skewed ones, which wins on the sum (1.8 against 2) and loses a program
  // that passes equal blocks.
  FakeMeasurer m;
  m.library_divisor = 1;
  m.confirmed_factor = [](const Point& p) {
    if (p.algorithm->desc->name != std::string("ring")) return 1.0;
    const bool equal = p.call.patterns == std::vector<CountPattern>{CountPattern::kEqual};
    if (p.call.bytes == 4096) return equal ? 1.5 : 0.3;
    return equal ? 0.8 : 0.9;
  };
  cct::tuner::search_collective(points, {}, {.bisect_depth = 1, .check_every = 0, .confirm = true},
                                m);
  // Each candidate is confirmed in each pattern apart.
  std::vector<std::string> keys;
  for (const ResultRow& r : m.rows)
    if (r.stage == Stage::kConfirm && r.bytes == 1024) keys.push_back(r.key());
  CHECK(keys == std::vector<std::string>{"allgatherv,shm,1,2,1024,mpi, [equal] confirm",
                                         "allgatherv,shm,1,2,1024,ring, [equal] confirm",
                                         "allgatherv,shm,1,2,1024,mpi, [skewed] confirm",
                                         "allgatherv,shm,1,2,1024,ring, [skewed] confirm"});
  // The library keeps 4 KiB, ring the sizes around it: two crossovers, each
  // timed in both patterns together, as the checks are.
  std::vector<std::string> crossovers = m.of(Stage::kCrossover);
  std::sort(crossovers.begin(), crossovers.end());
  CHECK(crossovers == std::vector<std::string>{"2048 mpi", "2048 ring", "8192 mpi", "8192 ring"});
}

TEST_CASE("search: --exhaustive measures every candidate fully", "[tuner]") {
  FakeMeasurer m;
  cct::tuner::search_collective(bcast_points(), {},
                                {.exhaustive = true, .bisect_depth = 0, .check_every = 0}, m);
  CHECK(m.of(Stage::kFinal).size() == 24);
  CHECK(m.screened.empty());
}

TEST_CASE("search: crossovers bisect where the winner changes", "[tuner]") {
  FakeMeasurer m;
  cct::tuner::search_collective(bcast_points(), {}, {.bisect_depth = 2, .check_every = 0}, m);
  // binomial wins 256, chain 1024: 512 (chain wins), then 362 (binomial).
  // Every segment costs the same: chain wins with its default one.
  CHECK(m.of(Stage::kCrossover) ==
        std::vector<std::string>{"512 binomial", "512 chain(segment=32k)", "362 binomial",
                                 "362 chain(segment=32k)"});
  CHECK(m.extra == 4);
}

TEST_CASE(
    "search: a reduction's winner and two fastest measured again in int32 and each type its size "
    "holds, together; its off-grid sizes in whole int32s",
    "[tuner]") {
  std::vector<Point> points;
  for (const char* name : {"recursive_doubling", "ring", "rabenseifner"})
    for (int64_t bytes : {4, 243, 1000, 4000})
      points.push_back(Point{.algorithm = &cct::test::algorithm(CCT_ALLREDUCE, name),
                             .transport = "shm",
                             .np = 2,
                             .call = {CCT_ALLREDUCE, bytes}});
  FakeMeasurer m;
  cct::tuner::search_collective(
      points, {}, {.bisect_depth = 1, .check_every = 2, .datatypes = {CCT_FLOAT, CCT_DOUBLE}}, m);
  // "bytes choice type" of the typed rows, in the order measured.
  std::vector<std::string> typed;
  for (const ResultRow& r : m.rows) {
    CHECK((r.stage == Stage::kTyped) == !r.datatype.empty());
    if (r.stage == Stage::kTyped)
      typed.push_back(std::to_string(r.bytes) + " " + r.choice() + " " + r.datatype);
  }
  // The two fastest at each size (the winner among them), in int32 first,
  // then in each type the size holds whole, in one measurement per size:
  // 4 bytes hold a float but no double, 243 neither.
  CHECK(typed ==
        std::vector<std::string>{"4 recursive_doubling int32", "4 rabenseifner int32",
                                 "4 recursive_doubling float", "4 rabenseifner float",
                                 "1000 rabenseifner int32", "1000 recursive_doubling int32",
                                 "1000 rabenseifner float", "1000 recursive_doubling float",
                                 "1000 rabenseifner double", "1000 recursive_doubling double",
                                 "4000 rabenseifner int32", "4000 recursive_doubling int32",
                                 "4000 rabenseifner float", "4000 recursive_doubling float",
                                 "4000 rabenseifner double", "4000 recursive_doubling double"});
  CHECK(m.together == std::vector<std::size_t>{4, 6, 6});  // the typed measurements' sizes
  CHECK(m.extra == m.of(Stage::kCrossover).size() + m.of(Stage::kCheck).size() + typed.size());
  // The crossover between 243 and 1000 (493 geometrically) and the check
  // there (621) are measured at whole int32s, as their neighbours are.
  CHECK(m.of(Stage::kCrossover) ==
        std::vector<std::string>{"492 recursive_doubling", "492 rabenseifner"});
  CHECK(m.of(Stage::kCheck) ==
        std::vector<std::string>{"620 recursive_doubling", "620 rabenseifner", "620 ring"});
  // A collective that does not reduce has no element types to measure.
  FakeMeasurer bcast;
  cct::tuner::search_collective(
      bcast_points(), {}, {.bisect_depth = 0, .check_every = 0, .datatypes = {CCT_DOUBLE}}, bcast);
  CHECK(bcast.of(Stage::kTyped).empty());
}

TEST_CASE(
    "search: a rooted collective's winner and two fastest measured again at root 0 and the last "
    "rank, together",
    "[tuner]") {
  FakeMeasurer m;
  cct::tuner::search_collective(bcast_points(), {},
                                {.bisect_depth = 0, .check_every = 0, .other_root = true}, m);
  // "bytes choice root" of the rooted rows, in the order measured; no
  // other row names a root.
  std::vector<std::string> rooted;
  for (const ResultRow& r : m.rows) {
    CHECK((r.stage == Stage::kRooted) == r.root.has_value());
    if (r.stage == Stage::kRooted)
      rooted.push_back(std::to_string(r.bytes) + " " + r.choice() + " " + std::to_string(*r.root));
  }
  // binomial and chain are the two fastest up to 256 bytes, the two chains
  // above: each pair at root 0, then at root 1 (the last of 2 ranks).
  CHECK(rooted == std::vector<std::string>{
                      "64 binomial 0",
                      "64 chain(segment=8k) 0",
                      "64 binomial 1",
                      "64 chain(segment=8k) 1",
                      "256 binomial 0",
                      "256 chain(segment=8k) 0",
                      "256 binomial 1",
                      "256 chain(segment=8k) 1",
                      "1024 chain(segment=8k) 0",
                      "1024 chain(segment=32k) 0",
                      "1024 chain(segment=8k) 1",
                      "1024 chain(segment=32k) 1",
                      "4096 chain(segment=8k) 0",
                      "4096 chain(segment=32k) 0",
                      "4096 chain(segment=8k) 1",
                      "4096 chain(segment=32k) 1",
                  });
  CHECK(m.together == std::vector<std::size_t>{4, 4, 4, 4});
  CHECK(m.extra == rooted.size());
  // Without the option, or on one rank, or for a collective without a
  // root, nothing is measured at another root.
  FakeMeasurer off;
  cct::tuner::search_collective(bcast_points(), {}, {.bisect_depth = 0, .check_every = 0}, off);
  CHECK(off.of(Stage::kRooted).empty());
  std::vector<Point> one_rank = bcast_points();
  for (Point& p : one_rank) p.np = 1;
  FakeMeasurer alone;
  cct::tuner::search_collective(one_rank, {},
                                {.bisect_depth = 0, .check_every = 0, .other_root = true}, alone);
  CHECK(alone.of(Stage::kRooted).empty());
  std::vector<Point> allreduce;
  for (const char* name : {"recursive_doubling", "ring"})
    allreduce.push_back(Point{.algorithm = &cct::test::algorithm(CCT_ALLREDUCE, name),
                              .transport = "shm",
                              .np = 2,
                              .call = {CCT_ALLREDUCE, 64}});
  FakeMeasurer unrooted;
  cct::tuner::search_collective(allreduce, {}, {.other_root = true}, unrooted);
  CHECK(unrooted.of(Stage::kRooted).empty());
}

TEST_CASE("search: checks measure the neighbours' contenders off the grid", "[tuner]") {
  FakeMeasurer m;
  cct::tuner::search_collective(bcast_points(), {}, {.bisect_depth = 0, .check_every = 2}, m);
  // The second gap (256..1024): its halfway size 640, with the three
  // finalists of both neighbours.
  CHECK(m.of(Stage::kCheck) == std::vector<std::string>{"640 binomial", "640 chain(segment=8k)",
                                                        "640 chain(segment=32k)"});
}

TEST_CASE("search: a check on a crossover's size measures nothing twice", "[tuner]") {
  // Earlier figures: binomial wins 1 byte, chain 4 bytes. The crossover
  // (geometric midpoint) and the check (arithmetic midpoint) both fall on 2.
  const std::vector<Point> all = bcast_points();
  std::vector<Point> points;
  std::map<std::string, ResultRow> known;
  const auto earlier = [&](const Point& p, int64_t bytes, double us) {
    points.push_back(p.at(bytes));
    const ResultRow row = points.back().row({.median_s = us * 1e-6, .reps = 31}, Stage::kFinal);
    known[row.key()] = row;
  };
  earlier(all[0], 1, 1);  // binomial
  earlier(all[0], 4, 9);
  earlier(all[4], 1, 2);  // chain(8k)
  earlier(all[4], 4, 2);
  FakeMeasurer m;
  cct::tuner::search_collective(points, known, {.bisect_depth = 1, .check_every = 1}, m);
  CHECK(m.of(Stage::kCrossover) == std::vector<std::string>{"2 binomial", "2 chain(segment=8k)"});
  CHECK(m.of(Stage::kCheck).empty());
  CHECK(m.extra == 2);
}

TEST_CASE("search: a resumed run measures nothing that is in the results", "[tuner]") {
  const std::vector<Point> points = bcast_points();
  FakeMeasurer first;
  cct::tuner::search_collective(points, {}, {}, first);
  std::map<std::string, ResultRow> known;
  for (const ResultRow& r : first.rows) known[r.key()] = r;

  FakeMeasurer again;
  cct::tuner::search_collective(points, known, {}, again);
  CHECK(again.rows.empty());
  CHECK(again.screened.empty());

  // Without the last row (a crash), only that point is measured again.
  known.erase(first.rows.back().key());
  FakeMeasurer resumed;
  cct::tuner::search_collective(points, known, {}, resumed);
  REQUIRE(resumed.rows.size() == 1);
  CHECK(resumed.rows[0].key() == first.rows.back().key());
}
