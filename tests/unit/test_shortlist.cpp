// The shortlist of a job (tuner/shortlist.hpp): from rows whose figures
// follow a known cost model, the candidates it keeps at a communicator
// size not measured yet are that model's fastest there and the pick of
// the size below; nothing is left out before two sizes were measured; and
// the text rank 0 hands the ranks of an MPI job reads back the same.
#include <catch2/catch.hpp>
#include <map>
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
std::vector<ResultRow> rows_at(const std::vector<int>& nps) {
  std::vector<ResultRow> rows;
  for (int np : nps)
    for (int64_t bytes : kSizes)
      for (const Candidate& c : kCandidates) {
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
std::string fastest(int np, int64_t bytes) {
  const Candidate* best = &kCandidates.front();
  for (const Candidate& c : kCandidates)
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

cct::tuner::Shortlist shortlist_of(const std::vector<ResultRow>& rows, int np, std::size_t keep,
                                   const cct::tuner::SpaceFilter& sizes = {}) {
  return cct::tuner::make_shortlist(
      rows, cct::test::registry(),
      [](int nodes, int np) { return cct::tuner::ShapeComm(np, nodes, {}); }, "shm", np, keep, {},
      sizes);
}

}  // namespace

TEST_CASE("shortlist: keeps the model's fastest and the pick below, leaves out the rest",
          "[cost]") {
  const cct::tuner::Shortlist s = shortlist_of(rows_at({4, 16}), 64, 1);
  CHECK(s.np == 64);
  CHECK(s.from_np == 16);
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
  for (int64_t bytes : kSizes) {
    INFO(bytes);
    const auto it = s.dropped.find({CCT_BCAST, "shm", bytes});
    REQUIRE(it != s.dropped.end());
    const std::set<std::string> kept_by_rule{fastest(64, bytes), fastest(16, bytes)};
    for (const Candidate& c : kCandidates) {
      INFO(choice(c));
      CHECK(it->second.contains(choice(c)) == !kept_by_rule.contains(choice(c)));
    }
  }
  // A point of the space is dropped by its collective, transport, size and
  // choice, not by its rank count alone.
  const cct::AlgorithmEntry& binomial = cct::test::algorithm(CCT_BCAST, "binomial");
  for (int64_t bytes : kSizes) {
    cct::tuner::Point p{.algorithm = &binomial, .transport = "shm", .np = 64};
    p.call = {.collective = CCT_BCAST, .bytes = bytes};
    CHECK(s.drops(p) == s.dropped.at({CCT_BCAST, "shm", bytes}).contains("binomial"));
    p.transport = "mpi";
    CHECK_FALSE(s.drops(p));
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

TEST_CASE("shortlist: nothing left out before two sizes were measured, nor with room for all",
          "[cost]") {
  CHECK(shortlist_of(rows_at({4}), 16, 1).dropped.empty());
  CHECK(shortlist_of(rows_at({4, 16}), 16, 1).dropped.empty());  // only np 4 is below 16
  CHECK(shortlist_of(rows_at({4, 16}), 64, kCandidates.size()).dropped.empty());
}

TEST_CASE("shortlist: the text handed to an MPI job's ranks reads back the same", "[cost]") {
  const cct::tuner::Shortlist s = shortlist_of(rows_at({4, 16}), 64, 2);
  REQUIRE_FALSE(s.dropped.empty());
  const cct::tuner::Shortlist back = cct::tuner::read_shortlist(write_shortlist(s));
  CHECK(back.np == s.np);
  CHECK(back.from_np == s.from_np);
  CHECK(back.dropped == s.dropped);
  CHECK_THROWS_AS(cct::tuner::read_shortlist("64 16\nbcast\tshm\n"), cct::Error);
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
  CHECK(cct::tuner::read_shortlist(cct::tuner::write_shortlist(s)).unvaried == s.unvaried);
  // Where the last root made the fastest twice as slow at np 16 and 4 KiB,
  // the roots are timed again.
  CHECK(shortlist_of(joined(rows_at({4, 16}), rooted_rows({4, 16}, 4096)), 64, 1)
            .times_variants(CCT_BCAST, Variation::kRoot));
  // Before two sizes were measured, every variant is timed.
  CHECK(shortlist_of(joined(rows_at({4}), rooted_rows({4})), 16, 1).unvaried.empty());
  CHECK_THROWS_WITH(cct::tuner::read_shortlist("64 16\nunvaried\tbcast\tcolours\n"),
                    "shortlist: bad line 'unvaried\tbcast\tcolours'");
}
