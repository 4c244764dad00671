// The cost model: the fit recovers known coefficients from synthetic
// figures, with and without noise, never below 0; and the prediction of
// a communicator size not measured picks, from figures that follow a
// known model, the candidate that model says is fastest there, in a
// bucket marked predicted.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "support/harness.hpp"
#include "tuner/cost_model.hpp"
#include "tuner/predict.hpp"

namespace {

using cct::tuner::CostModel;
using cct::tuner::CostSample;

double coefficient(const CostModel& model, const std::string& name) {
  for (const CostModel::Term& t : model.terms())
    if (t.name == name) return t.value;
  FAIL("no term " << name);
  return 0;
}

// Samples of calls with varied shapes, their seconds from known
// coefficients, scaled by 1 + noise * (a uniform draw in [-1, 1]).
std::vector<CostSample> synthetic(double noise) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> draw(-1, 1);
  std::vector<CostSample> samples;
  for (int messages = 1; messages <= 12; ++messages)
    for (double bytes : {0.0, 512.0, 65536.0, 1048576.0})
      for (int two_kinds = 0; two_kinds < 2; ++two_kinds) {
        CostSample s;
        s.span_kinds =
            two_kinds ? std::vector<std::string>{"numa", "node"} : std::vector<std::string>{"node"};
        s.cost.spans[0] = {static_cast<double>(messages), bytes};
        if (two_kinds) s.cost.spans[1] = {2.0, bytes / 4};
        s.cost.reduced_bytes = messages % 3 == 0 ? bytes : 0;
        const double node_messages = two_kinds ? 2.0 : messages;
        const double node_bytes = two_kinds ? bytes / 4 : bytes;
        const double numa_messages = two_kinds ? messages : 0;
        const double numa_bytes = two_kinds ? bytes : 0;
        const double truth = 2e-7 + 1e-6 * node_messages + 1e-9 * node_bytes +
                             3e-7 * numa_messages + 2e-10 * numa_bytes +
                             5e-10 * s.cost.reduced_bytes;
        s.seconds = truth * (1 + noise * draw(random));
        samples.push_back(s);
      }
  return samples;
}

}  // namespace

TEST_CASE("cost model: the fit recovers the coefficients of synthetic figures", "[cost]") {
  const std::map<std::string, double> truth{
      {"overhead", 2e-7},   {"message.node", 1e-6},  {"byte.node", 1e-9}, {"message.numa", 3e-7},
      {"byte.numa", 2e-10}, {"reduced byte", 5e-10}, {"copied byte", 0}};
  SECTION("exact figures: every coefficient to a part in a million") {
    const CostModel model = CostModel::fit(synthetic(0));
    for (const auto& [name, value] : truth) {
      INFO(name);
      CHECK(coefficient(model, name) == Approx(value).margin(1e-15).epsilon(1e-6));
    }
  }
  SECTION("figures with 2% noise: the coefficients that weigh, within 10%") {
    const CostModel model = CostModel::fit(synthetic(0.02));
    for (const char* name : {"message.node", "byte.node", "message.numa", "reduced byte"}) {
      INFO(name);
      CHECK(coefficient(model, name) == Approx(truth.at(name)).epsilon(0.10));
    }
  }
}

TEST_CASE("cost model: least squares never go below 0", "[cost]") {
  // Unconstrained, x = (-1, 1); with x >= 0 the first is 0 and the second
  // the best fit of the rest, (1 + 0) / 2.
  const std::vector<double> x =
      cct::tuner::nonnegative_least_squares({{1, 0}, {0, 1}, {1, 1}}, {-1, 1, 0});
  REQUIRE(x.size() == 2);
  CHECK(x[0] == 0);
  CHECK(x[1] == Approx(0.5));
  // A column of zeros gets 0.
  CHECK(cct::tuner::nonnegative_least_squares({{0, 2}, {0, 4}}, {1, 2})[0] == 0);
}

namespace {

// The figure of a bcast call on a flat communicator of np ranks over
// `nodes` nodes by the known model: 0.2 us + 1 us a message + 1 ns a byte.
double true_seconds(const cct::AlgorithmEntry& a, const std::map<std::string, int64_t>& params,
                    int nodes, int np, int64_t bytes) {
  std::string why;
  const auto cost = cct::tuner::cost_of_call(
      a, a.param_values(params), cct::tuner::ShapeComm(np, nodes, {}), CCT_BCAST, bytes, &why);
  REQUIRE(cost);
  return 2e-7 + 1e-6 * cost->spans[0].messages + 1e-9 * cost->spans[0].bytes;
}

struct Candidate {
  const char* algorithm;
  std::map<std::string, int64_t> params;
  const char* choice;
};

// Four, so that the library's row added to their predicted ones makes
// the vector grow (a pointer into it kept across would dangle).
const std::vector<Candidate> kCandidates{{"binomial", {}, "binomial"},
                                         {"scatter_allgather", {}, "scatter_allgather"},
                                         {"chain", {{"segment", 8192}}, "chain(segment=8k)"},
                                         {"knomial", {{"radix", 4}}, "knomial(radix=4)"}};

// On shm on one node, on mpi across nodes.
cct::tuner::Winner figure(const Candidate& c, int np, int64_t bytes, int nodes = 1) {
  const cct::AlgorithmEntry& a = cct::test::algorithm(CCT_BCAST, c.algorithm);
  const double seconds = true_seconds(a, c.params, nodes, np, bytes);
  return {.collective = CCT_BCAST,
          .transport = nodes == 1 ? "shm" : "mpi",
          .nodes = nodes,
          .np = np,
          .bytes = bytes,
          .algorithm = c.algorithm,
          .params = c.params,
          .choice = c.choice,
          .min_s = seconds,
          .median_s = seconds};
}

const std::vector<int64_t> kSizes{64, 4096, 262144, 4194304};

// The MPI library's own call, which states no cost: half the binomial's
// figure at `bytes` (it wins) at the smallest size, three times it (it
// loses) elsewhere.
cct::tuner::Winner library_figure(int np, int64_t bytes) {
  cct::tuner::Winner w = figure(kCandidates[0], np, bytes);
  w.algorithm = w.choice = "mpi";
  w.library = true;
  w.median_s = w.min_s = w.median_s * (bytes == kSizes.front() ? 0.5 : 3);
  return w;
}

const cct::tuner::Winner& fastest(const std::vector<cct::tuner::Winner>& rows) {
  return *std::min_element(rows.begin(), rows.end(),
                           [](auto& a, auto& b) { return a.median_s < b.median_s; });
}

// The winners of np 4 and 16 as pick_winners gives them, every candidate's
// figure from the known model; with `library`, the library's call too.
cct::tuner::Winners measured(bool library = false) {
  cct::tuner::Winners w;
  for (int np : {4, 16})
    for (int64_t bytes : kSizes) {
      std::vector<cct::tuner::Winner> rows;
      for (const Candidate& c : kCandidates) rows.push_back(figure(c, np, bytes));
      if (library) rows.push_back(library_figure(np, bytes));
      w.best.push_back(fastest(rows));
      w.contenders.push_back(rows);
    }
  return w;
}

}  // namespace

TEST_CASE("predict: a size not measured gets the known model's fastest, marked predicted",
          "[cost]") {
  const cct::tuner::Winners w = measured();
  const cct::tuner::PredictionPlan plan{
      .shape = [](int nodes, int np) { return cct::tuner::ShapeComm(np, nodes, {}); },
      .nps = {4, 16, 64}};
  const cct::tuner::Predictions predicted = predict(w, cct::test::registry(), plan);
  INFO(predicted.report);
  REQUIRE(predicted.winners.size() == kSizes.size());
  for (const cct::tuner::Winner& p : predicted.winners) {
    INFO(p.bytes);
    CHECK(p.np == 64);
    const cct::tuner::Winner* best = nullptr;
    std::vector<cct::tuner::Winner> truth;
    for (const Candidate& c : kCandidates) truth.push_back(figure(c, 64, p.bytes));
    best = &*std::min_element(truth.begin(), truth.end(),
                              [](auto& a, auto& b) { return a.median_s < b.median_s; });
    CHECK(p.choice == best->choice);
    CHECK(p.median_s == Approx(best->median_s).epsilon(1e-6));
  }
  // The model fitted on np 4 alone predicts np 16 exactly: the check says 0%.
  CHECK_THAT(predicted.report, Catch::Contains("time error median 0%"));
  const auto rules = cct::tuner::rules_with_predictions(w.best, predicted);
  const std::vector<cct::RankBucket>& buckets = rules.at(CCT_BCAST).at("shm");
  REQUIRE(buckets.size() == 3);
  CHECK(buckets[1].measured_np == 16);
  CHECK_FALSE(buckets[1].predicted);
  REQUIRE(buckets[2].predicted);
  CHECK(buckets[2].np_lo == 64);
  CHECK(buckets[2].predicted->np == 64);
  CHECK(buckets[2].predicted->from_np == 16);
  REQUIRE(buckets[2].predicted->error);
  CHECK(*buckets[2].predicted->error < 1e-6);
  CHECK_FALSE(buckets[2].measured_np);
}

TEST_CASE("predict: checked_lag is how far behind its pick the model put a size's fastest",
          "[cost]") {
  const cct::tuner::ShapeOf flat = [](int nodes, int np) {
    return cct::tuner::ShapeComm(np, nodes, {});
  };
  const cct::Registry& registry = cct::test::registry();
  cct::tuner::Winners w = measured();
  // The known model picks np 16's fastest everywhere from np 4.
  const std::optional<double> exact = checked_lag(w, registry, flat, "shm");
  REQUIRE(exact);
  CHECK(*exact == Approx(1));
  CHECK_FALSE(checked_lag(w, registry, flat, "mpi"));
  // At np 16 and 4 KiB, the candidate the model puts slowest is measured
  // at half the fastest's figure: the model, right at np 4, put that
  // size's fastest as far behind its pick as the candidate's true figure
  // is behind the true fastest's.
  const std::size_t at = 1 * kSizes.size() + 1;  // np 16, 4 KiB
  REQUIRE((w.best[at].np == 16 && w.best[at].bytes == 4096));
  std::vector<cct::tuner::Winner>& rows = w.contenders[at];
  const auto slowest = std::max_element(rows.begin(), rows.end(),
                                        [](auto& a, auto& b) { return a.median_s < b.median_s; });
  const double behind = slowest->median_s / w.best[at].median_s;
  REQUIRE(behind > 1.5);
  slowest->median_s = slowest->min_s = w.best[at].median_s / 2;
  w.best[at] = *slowest;
  const std::optional<double> lag = checked_lag(w, registry, flat, "shm");
  REQUIRE(lag);
  CHECK(*lag == Approx(behind).epsilon(1e-6));
  // One size measured: nothing to check.
  w.best.resize(kSizes.size());
  w.contenders.resize(kSizes.size());
  CHECK_FALSE(checked_lag(w, registry, flat, "shm"));
}

TEST_CASE("predict: the library's call, which states no cost, is kept where it won", "[cost]") {
  const cct::tuner::Winners w = measured(true);
  const cct::tuner::PredictionPlan plan{
      .shape = [](int nodes, int np) { return cct::tuner::ShapeComm(np, nodes, {}); }, .nps = {64}};
  const cct::tuner::Predictions predicted = predict(w, cct::test::registry(), plan);
  INFO(predicted.report);
  REQUIRE(predicted.winners.size() == kSizes.size());
  for (const cct::tuner::Winner& p : predicted.winners) {
    INFO(p.bytes);
    if (p.bytes == kSizes.front()) {
      // It won at np 16: nothing says how it scales, so it stays.
      CHECK(p.choice == "mpi");
      CHECK(p.library);
      continue;
    }
    std::vector<cct::tuner::Winner> truth;
    for (const Candidate& c : kCandidates) truth.push_back(figure(c, 64, p.bytes));
    CHECK(p.choice == std::min_element(truth.begin(), truth.end(), [](auto& a, auto& b) {
                        return a.median_s < b.median_s;
                      })->choice);
    // The fastest of the other kind falls back first: the library.
    REQUIRE_FALSE(p.fallbacks.empty());
    CHECK(p.fallbacks.front().algorithm == "mpi");
  }
}

TEST_CASE("predict: a node count not measured gets the known model's fastest, from its series",
          "[cost]") {
  // 2 and 4 nodes of 2 ranks each measured on mpi, and np 4 and 16 on one
  // node on shm: a series each. 16 nodes x 2 is predicted from 4 x 2 alone.
  cct::tuner::Winners w = measured();
  for (int nodes : {2, 4})
    for (int64_t bytes : kSizes) {
      std::vector<cct::tuner::Winner> rows;
      for (const Candidate& c : kCandidates) rows.push_back(figure(c, 2 * nodes, bytes, nodes));
      w.best.push_back(fastest(rows));
      w.contenders.push_back(rows);
    }
  const cct::tuner::PredictionPlan plan{
      .shape = [](int nodes, int np) { return cct::tuner::ShapeComm(np, nodes, {}); },
      .nps = {},
      .nodes = {1, 4, 16}};
  const cct::tuner::Predictions predicted = predict(w, cct::test::registry(), plan);
  INFO(predicted.report);
  CHECK_THAT(predicted.report, Catch::Contains("cost model (shm) checked"));
  CHECK_THAT(predicted.report,
             Catch::Contains("cost model (mpi, 2 ranks on each node) checked on each measured "
                             "node count from those below: 16 figures, time error median 0%"));
  CHECK_THAT(predicted.report, Catch::Contains("predicted (mpi, 2 ranks on each node): nodes 16,"));
  REQUIRE(predicted.winners.size() == kSizes.size());
  for (const cct::tuner::Winner& p : predicted.winners) {
    INFO(p.bytes);
    CHECK(p.transport == "mpi");
    CHECK(p.nodes == 16);
    CHECK(p.np == 32);
    std::vector<cct::tuner::Winner> truth;
    for (const Candidate& c : kCandidates) truth.push_back(figure(c, 32, p.bytes, 16));
    CHECK(p.choice == fastest(truth).choice);
    CHECK(p.median_s == Approx(fastest(truth).median_s).epsilon(1e-6));
  }
  const auto rules = cct::tuner::rules_with_predictions(w.best, predicted);
  const std::vector<cct::RankBucket>& buckets = rules.at(CCT_BCAST).at("mpi");
  REQUIRE(buckets.size() == 3);
  CHECK(buckets[1].nodes == 4);
  CHECK(buckets[1].measured_np == 8);
  REQUIRE(buckets[2].predicted);
  CHECK(buckets[2].nodes == 16);
  CHECK(*buckets[2].predicted ==
        cct::Prediction{
            .np = 32, .from_np = 8, .from_nodes = 4, .error = buckets[2].predicted->error});
  REQUIRE(buckets[2].predicted->error);
  CHECK(*buckets[2].predicted->error < 1e-6);
  // The rules' table says which buckets were predicted.
  const std::string table = cct::tuner::rules_table(rules, cct::test::registry());
  CHECK_THAT(table, Catch::Contains(" 16-max (16 nodes, predicted) "));
  CHECK_THAT(table, Catch::Contains(" 4-max (4 nodes) "));
}
