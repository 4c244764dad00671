// The shortlist of a job (tuner/shortlist.hpp): from rows whose figures
// follow a known cost model, the candidates it keeps at a communicator
// size not measured yet are that model's fastest there and the pick of
// the size below, less those far behind the fastest and one of two values
// of an algorithm tied, each left out for the reason it is given; nothing
// is left out before two sizes were measured; and the text rank 0 hands
// the ranks of an MPI job reads back the same.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cct/error.hpp"
#include "support/harness.hpp"
#include "tuner/shortlist.hpp"

namespace {

using cct::tuner::ResultRow;

struct Candidate {
  const char* algorithm;
  std::vector<int64_t> params;  // in the algorithm's table order
};

const std::vector<Candidate> kCandidates{{"binomial", {}},
                                         {"scatter_allgather", {}},
                                         {"chain", {8192}},
                                         {"knomial", {4}},
                                         {"knomial", {8}}};
// A chain of 8 KiB segments and one of 32 KiB send a buffer of up to 8 KiB
// alike: tied there.
const std::vector<Candidate> kChains{{"chain", {8192}}, {"chain", {32768}}};
const std::vector<int64_t> kSizes{64, 4096, 262144};

// A bcast's figure on a flat communicator of np ranks by the known model:
// 0.2 us + 1 us a message + 1 ns a byte.
double true_seconds(const Candidate& c, int np, int64_t bytes) {
  const cct::AlgorithmEntry& a = cct::test::algorithm(CCT_BCAST, c.algorithm);
  std::string why;
  const auto cost = cct::tuner::cost_of_call(a, c.params, cct::tuner::ShapeComm(np, 1, {}),
                                             CCT_BCAST, bytes, &why);
  REQUIRE(cost);
  return 2e-7 + 1e-6 * cost->spans[0].messages + 1e-9 * cost->spans[0].bytes;
}

std::string choice(const Candidate& c) {
  const cct::AlgorithmEntry& a = cct::test::algorithm(CCT_BCAST, c.algorithm);
  ResultRow r{.algorithm = c.algorithm, .params = cct::tuner::format_params(*a.desc, c.params)};
  return r.choice();
}

// Every candidate's final row at each size of each np.
std::vector<ResultRow> rows_at(const std::vector<int>& nps,
                               const std::vector<Candidate>& candidates = kCandidates) {
  std::vector<ResultRow> rows;
  for (int np : nps)
    for (int64_t bytes : kSizes)
      for (const Candidate& c : candidates) {
        const double s = true_seconds(c, np, bytes);
        rows.push_back({.collective = "bcast",
                        .transport = "shm",
                        .np = np,
                        .bytes = bytes,
                        .algorithm = c.algorithm,
                        .params = cct::tuner::format_params(
                            *cct::test::algorithm(CCT_BCAST, c.algorithm).desc, c.params),
                        .result = {.median_s = s, .min_s = s, .max_s = s, .reps = 31}});
      }
  return rows;
}

// The choice the known model says is fastest at np and bytes.
std::string fastest(int np, int64_t bytes, const std::vector<Candidate>& candidates = kCandidates) {
  const Candidate* best = &candidates.front();
  for (const Candidate& c : candidates)
    if (true_seconds(c, np, bytes) < true_seconds(*best, np, bytes)) best = &c;
  return choice(*best);
}

// The rows of the rooted step (search.hpp, step 7) at each np and size:
// every candidate at root 0 and at the last rank, at its final figure;
// at `slower_bytes`, the fastest twice as slow at the last rank.
std::vector<ResultRow> rooted_rows(const std::vector<int>& nps, int64_t slower_bytes = -1) {
  std::vector<ResultRow> rows;
  for (ResultRow r : rows_at(nps)) {
    r.stage = cct::tuner::Stage::kRooted;
    r.root = 0;
    rows.push_back(r);
    r.root = r.np - 1;
    if (r.bytes == slower_bytes && r.choice() == fastest(r.np, r.bytes))
      r.result.median_s = r.result.min_s = r.result.max_s = 2 * r.result.median_s;
    rows.push_back(r);
  }
  return rows;
}

std::vector<ResultRow> joined(std::vector<ResultRow> a, const std::vector<ResultRow>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Why the shortlist of a job at 64 from the exact figures of 4 and 16
// should leave c out at `bytes`, keeping `keep` fastest: the rules of
// shortlist.hpp applied to the known model (which picks every fastest
// where checked: lag 1, so the far-behind factor is its floor).
std::optional<cct::tuner::Dropped> expected_drop(
    const Candidate& c, int64_t bytes, std::size_t keep,
    const std::vector<Candidate>& candidates = kCandidates) {
  std::vector<const Candidate*> order;
  for (const Candidate& k : candidates) order.push_back(&k);
  std::stable_sort(order.begin(), order.end(), [&](const Candidate* a, const Candidate* b) {
    return std::pair(true_seconds(*a, 64, bytes), choice(*a)) <
           std::pair(true_seconds(*b, 64, bytes), choice(*b));
  });
  const auto tied = [&](const Candidate& a, const Candidate& b) {
    if (std::string(a.algorithm) != b.algorithm) return false;
    for (int np : {4, 16, 64})
      if (std::abs(true_seconds(a, np, bytes) / true_seconds(b, np, bytes) - 1) > cct::tuner::kTie)
        return false;
    return true;
  };
  std::vector<const Candidate*> kept;
  for (std::size_t i = 0; i < order.size(); ++i) {
    std::optional<cct::tuner::Dropped> why;
    const bool pick = choice(*order[i]) == fastest(16, bytes, candidates);
    if (i >= keep && !pick)
      why = cct::tuner::Dropped::kSlower;
    else if (!pick && true_seconds(*order[i], 64, bytes) >
                          cct::tuner::kFarBehindFloor * true_seconds(*order[0], 64, bytes))
      why = cct::tuner::Dropped::kFarBehind;
    else if (std::ranges::any_of(kept, [&](const Candidate* k) { return tied(*order[i], *k); }))
      why = cct::tuner::Dropped::kTied;
    if (!why) kept.push_back(order[i]);
    if (order[i] == &c) return why;
  }
  FAIL("not a candidate");
  return std::nullopt;
}

cct::tuner::Shortlist shortlist_of(const std::vector<ResultRow>& rows, int np, std::size_t keep,
                                   const cct::tuner::SpaceFilter& sizes = {}) {
  return cct::tuner::make_shortlist(
      rows, cct::test::registry(),
      [](int nodes, int np) { return cct::tuner::ShapeComm(np, nodes, {}); }, "shm", 1, np, keep,
      {}, sizes);
}

}  // namespace

TEST_CASE("shortlist: keeps the model's fastest and the pick below, leaves out the rest",
          "[cost]") {
  const cct::tuner::Shortlist s = shortlist_of(rows_at({4, 16}), 64, 2);
  CHECK(s.np == 64);
  CHECK(s.from_np == 16);
  CHECK(s.lag == Approx(1));  // the known model picks np 16's fastest from np 4
  CHECK(s.far_behind() == cct::tuner::kFarBehindFloor);
  std::size_t dropped = 0;
  for (const auto& [point, choices] : s.dropped) dropped += choices.size();
  CHECK(s.kept + dropped == kSizes.size() * kCandidates.size());
  // Every kept point's calls: 5 of warm-up and the 31 repetitions it took
  // at 16, of its figure at 64.
  double kept_timed_s = 0;
  for (int64_t bytes : kSizes)
    for (const Candidate& c : kCandidates)
      if (!s.dropped.at({CCT_BCAST, "shm", bytes}).contains(choice(c)))
        kept_timed_s += (5 + 31) * true_seconds(c, 64, bytes);
  CHECK(s.kept_timed_s == Approx(kept_timed_s).epsilon(1e-6));
  std::set<cct::tuner::Dropped> reasons;
  for (int64_t bytes : kSizes) {
    INFO(bytes);
    const auto it = s.dropped.find({CCT_BCAST, "shm", bytes});
    REQUIRE(it != s.dropped.end());
    CHECK_FALSE(it->second.contains(fastest(64, bytes)));
    for (const Candidate& c : kCandidates) {
      INFO(choice(c));
      const std::optional<cct::tuner::Dropped> why = expected_drop(c, bytes, 2);
      if (why) reasons.insert(*why);
      const auto dropped_c = it->second.find(choice(c));
      CHECK((dropped_c == it->second.end() ? std::nullopt : std::optional(dropped_c->second)) ==
            why);
    }
  }
  CHECK(reasons.contains(cct::tuner::Dropped::kSlower));
  // A point of the space is dropped by its collective, transport, size and
  // choice, not by its rank count alone.
  const cct::AlgorithmEntry& binomial = cct::test::algorithm(CCT_BCAST, "binomial");
  for (int64_t bytes : kSizes) {
    cct::tuner::Point p{.algorithm = &binomial, .transport = "shm", .np = 64};
    p.call = {.collective = CCT_BCAST, .bytes = bytes};
    CHECK(s.why_dropped(p).has_value() ==
          s.dropped.at({CCT_BCAST, "shm", bytes}).contains("binomial"));
    p.transport = "mpi";
    CHECK_FALSE(s.why_dropped(p));
  }
}

// The job measures no size beyond its largest (--max-rank-bytes): those
// are neither kept nor left out, and cost its plan nothing.
TEST_CASE("shortlist: nothing of the sizes the job does not measure", "[cost]") {
  const cct::tuner::Shortlist s =
      shortlist_of(rows_at({4, 16}), 64, 1, {.max_bytes = 1 << 20, .max_rank_bytes = 4096});
  std::size_t dropped = 0;
  for (const auto& [point, choices] : s.dropped) dropped += choices.size();
  CHECK(s.kept + dropped == 2 * kCandidates.size());  // at 64 and 4096 bytes
  CHECK_FALSE(s.dropped.contains({CCT_BCAST, "shm", 262144}));
  CHECK(s.dropped.contains({CCT_BCAST, "shm", 4096}));
}

TEST_CASE("shortlist: after a shortlisted size, each candidate scaled from where it was last",
          "[cost]") {
  // np 64's job measured only its shortlist; np 256's shortlist scales
  // those left out at 64 from 16 (the known model is exact either way), so
  // it leaves out what it would have, had 64 measured every candidate.
  const cct::tuner::Shortlist at64 = shortlist_of(rows_at({4, 16}), 64, 2);
  std::vector<ResultRow> rows = rows_at({4, 16});
  for (const ResultRow& r : rows_at({64}))
    if (!at64.dropped.at({CCT_BCAST, "shm", r.bytes}).contains(r.choice())) rows.push_back(r);
  REQUIRE(rows.size() < rows_at({4, 16, 64}).size());
  const cct::tuner::Shortlist partial = shortlist_of(rows, 256, 2);
  const cct::tuner::Shortlist whole = shortlist_of(rows_at({4, 16, 64}), 256, 2);
  CHECK(partial.from_np == 64);
  CHECK(partial.kept == whole.kept);
  CHECK(partial.dropped == whole.dropped);
}

TEST_CASE("shortlist: nothing left out before two sizes were measured", "[cost]") {
  CHECK(shortlist_of(rows_at({4}), 16, 1).dropped.empty());
  CHECK(shortlist_of(rows_at({4, 16}), 16, 1).dropped.empty());  // only np 4 is below 16
}

// With room for every candidate, only those far behind.
TEST_CASE("shortlist: with room for all, leaves out those far behind", "[cost]") {
  const cct::tuner::Shortlist s = shortlist_of(rows_at({4, 16}), 64, kCandidates.size());
  std::size_t far_behind = 0;
  for (int64_t bytes : kSizes)
    for (const Candidate& c : kCandidates) {
      INFO(bytes << " " << choice(c));
      const std::optional<cct::tuner::Dropped> why = expected_drop(c, bytes, kCandidates.size());
      CHECK(why != cct::tuner::Dropped::kSlower);
      const auto at = s.dropped.find({CCT_BCAST, "shm", bytes});
      const bool dropped = at != s.dropped.end() && at->second.contains(choice(c));
      CHECK(dropped == why.has_value());
      if (dropped) CHECK(at->second.at(choice(c)) == *why);
      far_behind += why == cct::tuner::Dropped::kFarBehind;
    }
  CHECK(far_behind > 0);
  // At 64 B the fastest's figure is half binomial's.
  CHECK(s.dropped.at({CCT_BCAST, "shm", 64}).at("binomial") == cct::tuner::Dropped::kFarBehind);
}

// Two chains that send a buffer of up to 8 KiB alike: one of them is
// measured there; at 256 KiB, where they differ, no tie.
TEST_CASE("shortlist: measures one of two values of an algorithm tied below and as predicted",
          "[cost]") {
  const cct::tuner::Shortlist s = shortlist_of(rows_at({4, 16}, kChains), 64, 2);
  for (int64_t bytes : {64, 4096}) {
    INFO(bytes);
    CHECK(expected_drop(kChains[0], bytes, 2, kChains) == cct::tuner::Dropped::kTied);
    CHECK(s.dropped.at({CCT_BCAST, "shm", bytes}) ==
          std::map<std::string, cct::tuner::Dropped>{
              {"chain(segment=8k)", cct::tuner::Dropped::kTied}});
  }
  for (const auto& [choice, why] : s.dropped.at({CCT_BCAST, "shm", 262144}))
    CHECK(why != cct::tuner::Dropped::kTied);
}

namespace {

// The points of every candidate at every size at np 64, less those the
// shortlist of `keep` removes; its words about them.
std::string removed_text(const std::vector<Candidate>& candidates, std::size_t keep) {
  const cct::tuner::Shortlist s = shortlist_of(rows_at({4, 16}, candidates), 64, keep);
  cct::tuner::Space space;
  for (const Candidate& c : candidates)
    for (int64_t bytes : kSizes) {
      cct::tuner::Point p{.algorithm = &cct::test::algorithm(CCT_BCAST, c.algorithm),
                          .params = c.params,
                          .transport = "shm",
                          .np = 64};
      p.call = {.collective = CCT_BCAST, .bytes = bytes};
      space.points.push_back(p);
    }
  const std::size_t total = space.points.size();
  const std::map<cct::tuner::Dropped, std::size_t> removed = apply_shortlist(s, space);
  std::size_t sum = 0;
  for (const auto& [why, count] : removed) sum += count;
  CHECK(sum + space.points.size() == total);
  CHECK(space.points.size() == s.kept);
  return describe_removed(s, removed, total);
}

}  // namespace

TEST_CASE("shortlist: says why it left points out", "[cost]") {
  // Of 15 points (5 candidates, 3 sizes), the 2 fastest kept at each.
  CHECK(removed_text(kCandidates, 2) ==
        "9 of 15 points left out, by the cost model fitted below np=64 from the figures of "
        "np=16 (of a candidate not measured there, its last): 9 predicted slower than the 2 "
        "fastest");
  CHECK_THAT(removed_text(kCandidates, kCandidates.size()),
             Catch::Contains(" predicted over 2x behind the fastest (where checked on np=16, "
                             "the model put a size's fastest up to 1x behind its own pick: that "
                             "squared for a size further out, 2x at least)"));
  CHECK_THAT(removed_text(kChains, 2),
             Catch::EndsWith(", 2 tied with another value of their algorithm, measured (within 3% "
                             "of it at the two sizes both were last measured at, and as "
                             "predicted)"));
}

TEST_CASE("shortlist: the text handed to an MPI job's ranks reads back the same", "[cost]") {
  const cct::tuner::Shortlist s = shortlist_of(rows_at({4, 16}), 64, 2);
  REQUIRE_FALSE(s.dropped.empty());
  const cct::tuner::Shortlist back = cct::tuner::read_shortlist(write_shortlist(s));
  CHECK(back.nodes == s.nodes);
  CHECK(back.np == s.np);
  CHECK(back.from_np == s.from_np);
  CHECK(back.confirming == s.confirming);
  CHECK(back.keep == s.keep);
  CHECK(back.lag == s.lag);
  CHECK(back.dropped == s.dropped);
  // The plan's figures: a kept shortlist plans its job's second pass.
  CHECK(back.kept == s.kept);
  CHECK(back.kept_timed_s == s.kept_timed_s);
  CHECK(back.left_out_timed_s == s.left_out_timed_s);
  CHECK_THROWS_AS(cct::tuner::read_shortlist("1 64 16 0 2 1 3 0.5 0\nbcast\tshm\n"), cct::Error);
  CHECK_THROWS_WITH(
      cct::tuner::read_shortlist("1 64 16 0 2 1 3 0.5 0\nbcast\tshm\t64\tlost\tchain\n"),
      "shortlist: bad line 'bcast\tshm\t64\tlost\tchain'");
  // Read from a file too (kept_shortlists.hpp): a size that is no number.
  CHECK_THROWS_WITH(
      cct::tuner::read_shortlist("1 64 16 0 2 1 3 0.5 0\nbcast\tshm\tmany\tslower\tchain\n"),
      "shortlist: bad line 'bcast\tshm\tmany\tslower\tchain'");
  CHECK_THROWS_AS(cct::tuner::read_shortlist("1 64 16 0 2 1\n"), cct::Error);  // no plan figures
  CHECK_THROWS_AS(cct::tuner::read_shortlist(""), cct::Error);
}

TEST_CASE("shortlist: variants that changed nothing below are not timed again", "[cost]") {
  using cct::tuner::Variation;
  // bcast's last root orders the candidates as root 0 at np 4 and 16.
  const cct::tuner::Shortlist s =
      shortlist_of(joined(rows_at({4, 16}), rooted_rows({4, 16})), 64, 1);
  CHECK(s.unvaried ==
        std::set<std::pair<cct_collective, Variation>>{{CCT_BCAST, Variation::kRoot}});
  CHECK_FALSE(s.times_variants(CCT_BCAST, Variation::kRoot));
  CHECK(s.times_variants(CCT_ALLREDUCE, Variation::kElementType));  // never timed below
  // What np 16's rooted rows took, which the plan leaves out.
  double rooted_s = 0;
  for (const ResultRow& r : rooted_rows({16})) rooted_s += r.result.median_s * r.result.reps;
  CHECK(s.left_out_timed_s == Approx(rooted_s));
  CHECK(cct::tuner::read_shortlist(cct::tuner::write_shortlist(s)).unvaried == s.unvaried);
  // Where the last root made the fastest twice as slow at np 16 and 4 KiB,
  // the roots are timed again.
  CHECK(shortlist_of(joined(rows_at({4, 16}), rooted_rows({4, 16}, 4096)), 64, 1)
            .times_variants(CCT_BCAST, Variation::kRoot));
  // Before two sizes were measured, every variant is timed.
  CHECK(shortlist_of(joined(rows_at({4}), rooted_rows({4})), 16, 1).unvaried.empty());
  CHECK_THROWS_WITH(cct::tuner::read_shortlist("1 64 16 0 1 0 3 0.5 0\nunvaried\tbcast\tcolours\n"),
                    "shortlist: bad line 'unvaried\tbcast\tcolours'");
}

TEST_CASE("shortlist: a confirming job's keeps the fastest predicted and the pick below",
          "[cost]") {
  using cct::tuner::Stage;
  using cct::tuner::Variation;
  std::vector<ResultRow> rows = joined(rows_at({4, 16}), rooted_rows({4, 16}));
  double left_out_s = 0;  // np 16's rooted rows, crossovers and checks
  for (const ResultRow& r : rooted_rows({16})) left_out_s += r.result.median_s * r.result.reps;
  for (Stage stage : {Stage::kCrossover, Stage::kCheck, Stage::kConfirm}) {
    ResultRow r = rows_at({16}).front();
    r.stage = stage;
    rows.push_back(r);
    if (stage != Stage::kConfirm) left_out_s += r.result.median_s * r.result.reps;
  }
  const cct::tuner::Shortlist s = cct::tuner::make_shortlist(
      rows, cct::test::registry(),
      [](int nodes, int np) { return cct::tuner::ShapeComm(np, nodes, {}); }, "shm", 1, 64, 2, {},
      {}, true);
  CHECK(s.confirming);
  CHECK(s.keep == 1);
  for (int64_t bytes : kSizes) {
    std::set<std::string> kept;
    for (const Candidate& c : kCandidates)
      if (!s.dropped.at({CCT_BCAST, "shm", bytes}).contains(choice(c))) kept.insert(choice(c));
    CHECK(kept.contains(fastest(64, bytes)));
    CHECK(kept.size() <= 2);  // and np 16's pick, where another
  }
  CHECK(s.kept < shortlist_of(rows, 64, 2).kept);
  // No variant is timed, even one that changed a winner below.
  CHECK_FALSE(s.times_variants(CCT_ALLREDUCE, Variation::kElementType));
  CHECK(s.left_out_timed_s == Approx(left_out_s));
  CHECK(cct::tuner::read_shortlist(cct::tuner::write_shortlist(s)).confirming);
  CHECK_THAT(cct::tuner::describe_confirming(s),
             Catch::Contains("the model's fastest measured beside the picks of np=16 and"));
}

// Across nodes (a cluster's shapes of N nodes, more ranks on each): from
// the rows of as many nodes only, as one node's from one node's.
TEST_CASE("shortlist: across nodes, from the sizes measured over as many nodes", "[cost]") {
  std::vector<ResultRow> on_two = rows_at({4, 16});
  for (ResultRow& r : on_two) r.nodes = 2;
  // The same shape whatever the nodes: the figures alike, so the shortlist.
  const auto one_shape = [](int, int np) { return cct::tuner::ShapeComm(np, 1, {}); };
  const auto across = [&](const std::vector<ResultRow>& rows, int nodes) {
    return cct::tuner::make_shortlist(rows, cct::test::registry(), one_shape, "shm", nodes, 64, 2,
                                      {}, {});
  };
  const cct::tuner::Shortlist two = across(on_two, 2);
  const cct::tuner::Shortlist one = across(rows_at({4, 16}), 1);
  REQUIRE_FALSE(one.dropped.empty());
  CHECK(two.nodes == 2);
  CHECK(two.from_np == 16);
  CHECK(two.dropped == one.dropped);
  CHECK(two.lag == 0);  // the model is checked on one node's sizes only
  // Rows over other node counts are not its footing, either way.
  CHECK(across(on_two, 1).dropped.empty());
  CHECK(across(rows_at({4, 16}), 2).dropped.empty());
  CHECK(across(joined(on_two, rows_at({4, 16})), 2).dropped == one.dropped);
  CHECK(cct::tuner::read_shortlist(cct::tuner::write_shortlist(two)).nodes == 2);
  CHECK_THAT(cct::tuner::describe_removed(two, {{cct::tuner::Dropped::kSlower, 3}}, 10),
             Catch::StartsWith("3 of 10 points left out, by the cost model fitted below np=64 (2 "
                               "nodes) from the figures of np=16 (2 nodes)"));
}

// A confirming job across nodes weighs the pick of the measured size above
// on as many nodes, not one node's.
TEST_CASE("shortlist: a confirming job across nodes keeps the pick above on its nodes", "[cost]") {
  const auto on_nodes = [](std::vector<ResultRow> rows, int nodes) {
    for (ResultRow& r : rows) r.nodes = nodes;
    return rows;
  };
  // At np 256 a candidate neither np 16's pick nor the model's fastest at
  // 64 wins at each size: the pick above.
  std::vector<ResultRow> above = rows_at({256});
  std::map<int64_t, std::string> pick_above;
  for (int64_t bytes : kSizes)
    for (const Candidate& c : kCandidates)
      if (choice(c) != fastest(64, bytes) && choice(c) != fastest(16, bytes)) {
        pick_above[bytes] = choice(c);
        for (ResultRow& r : above)
          if (r.bytes == bytes && r.choice() == choice(c)) r.result.median_s = 1e-9;
        break;
      }
  REQUIRE(pick_above.size() == kSizes.size());
  const auto kept_at_64 = [&](const std::vector<ResultRow>& rows) {
    const cct::tuner::Shortlist s = cct::tuner::make_shortlist(
        rows, cct::test::registry(), [](int, int np) { return cct::tuner::ShapeComm(np, 1, {}); },
        "shm", 2, 64, 2, {}, {}, true);
    std::map<int64_t, bool> kept;
    for (int64_t bytes : kSizes)
      kept[bytes] = !s.dropped.at({CCT_BCAST, "shm", bytes}).contains(pick_above[bytes]);
    return kept;
  };
  const std::vector<ResultRow> below = on_nodes(rows_at({4, 16}), 2);
  for (const auto& [bytes, kept] : kept_at_64(joined(below, on_nodes(above, 2)))) CHECK(kept);
  for (const auto& [bytes, kept] : kept_at_64(joined(below, on_nodes(above, 1)))) CHECK_FALSE(kept);
}
