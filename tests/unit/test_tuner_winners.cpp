// The tuner's choice of winners and the profile rules built from them, from
// synthetic result rows: no processes, no timing.
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <tuple>
#include <vector>

#include "cct/profile.hpp"
#include "cct/topology.hpp"
#include "support/bucket_ranges.hpp"
#include "support/harness.hpp"
#include "tuner/accuracy.hpp"
#include "tuner/machine.hpp"
#include "tuner/winners.hpp"

namespace {

namespace fs = std::filesystem;
using cct::kMaxBytes;
using cct::kMaxRanks;
using cct::tuner::ResultRow;
using cct::tuner::Stage;

ResultRow row(const std::string& collective, int np, int64_t bytes, const std::string& algorithm,
              const std::string& params, double median_s) {
  return {.collective = collective,
          .transport = "shm",
          .np = np,
          .bytes = bytes,
          .algorithm = algorithm,
          .params = params,
          .result = {.median_s = median_s, .min_s = median_s, .max_s = median_s, .reps = 5}};
}

// r as timed at stage s (a confirmation, the search's check at an off-grid
// size, ...).
ResultRow staged(ResultRow r, Stage s) {
  r.stage = s;
  return r;
}

// row() measured on a communicator spanning `nodes` nodes.
ResultRow on_nodes(int nodes, ResultRow r) {
  r.nodes = nodes;
  return r;
}

std::vector<cct::tuner::Winner> winners_of(const std::vector<ResultRow>& rows) {
  const cct::tuner::Winners w = cct::tuner::pick_winners(rows, cct::test::registry());
  REQUIRE(w.ignored.empty());
  return w.best;
}

std::vector<cct::RankBucket> bcast_buckets(const std::vector<ResultRow>& rows) {
  auto rules = cct::tuner::build_rules(winners_of(rows));
  REQUIRE(rules.size() == 1);
  REQUIRE(rules[CCT_BCAST].size() == 1);
  return rules[CCT_BCAST]["shm"];
}

using cct::test::Range;
using cct::test::ranges;

}  // namespace

TEST_CASE("pick_winners keeps the lowest median of each point group", "[tuner]") {
  const std::vector<ResultRow> rows{
      row("bcast", 2, 1024, "binomial", "", 3e-6),
      row("bcast", 2, 1024, "knomial", "radix=4", 2e-6),
      row("bcast", 2, 1024, "knomial", "radix=8", 2e-6),  // a tie: the earlier row wins
      row("bcast", 2, 64, "binomial", "", 1e-6),
      row("bcast", 4, 64, "chain", "segment=8k", 5e-6),
      row("barrier", 2, 0, "dissemination", "", 4e-7),
  };
  const std::vector<cct::tuner::Winner> best = winners_of(rows);
  REQUIRE(best.size() == 4);
  // Ordered by collective, transport, np, bytes.
  CHECK(best[0].collective == CCT_BARRIER);
  CHECK((best[1].np == 2 && best[1].bytes == 64 && best[1].algorithm == "binomial"));
  CHECK((best[2].bytes == 1024 && best[2].algorithm == "knomial"));
  CHECK(best[2].params == std::map<std::string, int64_t>{{"radix", 4}});
  CHECK(best[2].median_s == 2e-6);
  CHECK(best[3].params == std::map<std::string, int64_t>{{"segment", 8192}});
}

TEST_CASE("pick_winners: of two jobs' confirmations, a candidate's slower one competes",
          "[tuner]") {
  // Confirmed in the first job, binomial beat the library; in the second
  // (fresh processes) it took three times as long. The slower figure
  // stands, so the library wins; a full timing never outweighs either.
  const std::vector<ResultRow> rows{
      row("bcast", 2, 1024, "binomial", "", 0.5e-6),
      staged(row("bcast", 2, 1024, "binomial", "", 1e-6), Stage::kConfirm),
      staged(row("bcast", 2, 1024, "mpi", "", 2e-6), Stage::kConfirm),
      staged(row("bcast", 2, 1024, "binomial", "", 3e-6), Stage::kReconfirm),
      staged(row("bcast", 2, 1024, "mpi", "", 1.9e-6), Stage::kReconfirm),
  };
  const std::vector<cct::tuner::Winner> best = winners_of(rows);
  REQUIRE(best.size() == 1);
  CHECK(best[0].algorithm == "mpi");
  CHECK(best[0].median_s == 2e-6);
  // Without the second job's rows the first job's figures decide.
  const std::vector<ResultRow> first_job(rows.begin(), rows.begin() + 3);
  CHECK(winners_of(first_job)[0].algorithm == "binomial");
}

TEST_CASE("pick_winners: a vector collective's pick holds in each count pattern", "[tuner]") {
  // Confirmed in each pattern apart, in two jobs: ring's sum (1.8 us
  // against the library's 2) wins, but in equal blocks ring takes 1.5x the
  // library's time, so the library keeps the size. At 4 KiB ring is faster
  // in both patterns, and wins, unless the second job's figure in one of
  // them is slower than the library's.
  const auto confirmed = [](int64_t bytes, const char* algorithm, const char* counts,
                            double median_us, Stage s) {
    ResultRow r = row("allgatherv", 2, bytes, algorithm, "", median_us * 1e-6);
    r.counts = counts, r.stage = s;
    return r;
  };
  std::vector<ResultRow> rows{
      confirmed(1024, "ring", "equal+skewed", 0.5, Stage::kFinal),
      confirmed(1024, "ring", "equal", 1.5, Stage::kConfirm),
      confirmed(1024, "ring", "skewed", 0.3, Stage::kConfirm),
      confirmed(1024, "mpi", "equal", 1, Stage::kConfirm),
      confirmed(1024, "mpi", "skewed", 1, Stage::kConfirm),
      confirmed(4096, "ring", "equal", 0.8, Stage::kConfirm),
      confirmed(4096, "ring", "skewed", 0.9, Stage::kConfirm),
      confirmed(4096, "mpi", "equal", 1, Stage::kConfirm),
      confirmed(4096, "mpi", "skewed", 1, Stage::kConfirm),
  };
  std::vector<cct::tuner::Winner> best = winners_of(rows);
  REQUIRE(best.size() == 2);
  CHECK(best[0].algorithm == "mpi");
  CHECK(best[0].median_s == Approx(2e-6));
  // ring's worst pattern (0.9 of the library) times the library's sum.
  CHECK(best[1].algorithm == "ring");
  CHECK(best[1].median_s == Approx(1.8e-6));
  rows.push_back(confirmed(4096, "ring", "skewed", 1.2, Stage::kReconfirm));
  best = winners_of(rows);
  CHECK(best[1].algorithm == "mpi");
  // Without the library, the candidate whose worst pattern loses least to
  // that pattern's fastest wins: bruck (1.4x the fastest in skewed blocks)
  // over ring (1.5x in equal blocks), though ring's sum is lower.
  const std::vector<ResultRow> algorithms{
      confirmed(1024, "ring", "equal", 1.5, Stage::kConfirm),
      confirmed(1024, "ring", "skewed", 2, Stage::kConfirm),
      confirmed(1024, "bruck", "equal", 1, Stage::kConfirm),
      confirmed(1024, "bruck", "skewed", 2.8, Stage::kConfirm),
  };
  CHECK(winners_of(algorithms)[0].algorithm == "bruck");
}

TEST_CASE("pick_winners leaves out rows the registry does not accept", "[tuner]") {
  const std::vector<ResultRow> rows{
      row("bcast", 2, 64, "no_such", "", 1e-9),
      row("bcast", 2, 64, "knomial", "radix=5", 1e-9),
      row("bcast", 2, 64, "knomial", "fanout=4", 1e-9),
      row("bcst", 2, 64, "binomial", "", 1e-9),
      row("bcast", 2, 64, "binomial", "", 1e-6),
  };
  const cct::tuner::Winners w = cct::tuner::pick_winners(rows, cct::test::registry());
  REQUIRE(w.best.size() == 1);
  CHECK(w.best[0].algorithm == "binomial");
  REQUIRE(w.ignored.size() == 4);
  CHECK(w.ignored[0].find("bcast/knomial") != std::string::npos);
  CHECK(w.ignored[2].find("bcast/no_such: not registered") != std::string::npos);
  CHECK(w.ignored[3] == "unknown collective 'bcst'");
}

TEST_CASE("build_rules: one size range per measured size, covering 0..max", "[tuner]") {
  const auto buckets = bcast_buckets({
      row("bcast", 2, 64, "binomial", "", 1e-6),
      row("bcast", 2, 1024, "knomial", "radix=4", 2e-6),
      row("bcast", 2, 65536, "chain", "segment=32k", 9e-6),
  });
  REQUIRE(buckets.size() == 1);
  CHECK(buckets[0].np_lo == 1);
  CHECK(buckets[0].np_hi == kMaxRanks);
  CHECK(ranges(buckets[0]) == std::vector<Range>{{0, 1024, "binomial"},
                                                 {1024, 65536, "knomial"},
                                                 {65536, kMaxBytes, "chain"}});
  CHECK(buckets[0].sizes[1].median_s == 2e-6);
  CHECK(buckets[0].sizes[2].params == std::map<std::string, int64_t>{{"segment", 32768}});
}

TEST_CASE("build_rules merges neighbours with the same algorithm and values", "[tuner]") {
  const auto buckets = bcast_buckets({
      row("bcast", 2, 1, "knomial", "radix=4", 1e-6),
      row("bcast", 2, 16, "knomial", "radix=4", 2e-6),
      row("bcast", 2, 256, "knomial", "radix=8", 3e-6),
      row("bcast", 2, 4096, "binomial", "", 4e-6),
      row("bcast", 2, 65536, "binomial", "", 5e-6),
  });
  REQUIRE(buckets.size() == 1);
  CHECK(ranges(buckets[0]) == std::vector<Range>{{0, 256, "knomial"},
                                                 {256, 4096, "knomial"},
                                                 {4096, kMaxBytes, "binomial"}});
  // A merged range keeps the figure of its first measured size.
  CHECK(buckets[0].sizes[0].median_s == 1e-6);
  CHECK(buckets[0].sizes[2].median_s == 4e-6);
}

TEST_CASE("build_rules: one bucket per measured np, from 1 to max", "[tuner]") {
  const auto buckets = bcast_buckets({
      row("bcast", 8, 64, "binomial", "", 1e-6),
      row("bcast", 2, 64, "knomial", "radix=2", 1e-6),
      row("bcast", 4, 64, "knomial", "radix=4", 1e-6),
  });
  REQUIRE(buckets.size() == 3);
  CHECK((buckets[0].np_lo == 1 && buckets[0].np_hi == 3));
  CHECK((buckets[1].np_lo == 4 && buckets[1].np_hi == 7));
  CHECK((buckets[2].np_lo == 8 && buckets[2].np_hi == kMaxRanks));
  CHECK(buckets[2].sizes[0].algorithm == "binomial");
  // Each records the size it was measured at, for the runtime to say when
  // it stretches the rules to another.
  CHECK(
      (buckets[0].measured_np == 2 && buckets[1].measured_np == 4 && buckets[2].measured_np == 8));
}

TEST_CASE("a profile of the built rules passes load_profile with the registry", "[tuner]") {
  const std::vector<ResultRow> rows{
      row("barrier", 2, 0, "dissemination", "", 4e-7),
      row("bcast", 2, 1, "knomial", "radix=4", 1e-6),
      row("bcast", 2, 4096, "chain", "segment=128k", 3e-6),
      row("bcast", 4, 1, "binomial", "", 2e-6),
      row("allreduce", 4, 1048576, "ring", "", 9e-5),
  };
  const cct::Topology topo = cct::Topology::synthetic("pack:2 numa:2 l3:2 core:4 pu:2");
  const cct::Profile profile{.tool_version = "test",
                             .date = "2026-11-22T04:00:00Z",
                             .machine = cct::tuner::describe_machine(topo, 4),
                             .tuning = {{"quick", "true"}},
                             .rules = cct::tuner::build_rules(winners_of(rows))};
  std::string dir = (fs::temp_directory_path() / "cct_winners_XXXXXX").string();
  REQUIRE(::mkdtemp(dir.data()) != nullptr);
  const std::string path = dir + "/profile.yaml";
  cct::save_profile(profile, path);
  const cct::Profile loaded = cct::load_profile(path, &cct::test::registry());
  fs::remove_all(dir);
  CHECK(loaded == profile);
}

TEST_CASE("describe_machine reads the shape from the topology", "[tuner]") {
  const cct::Topology topo = cct::Topology::synthetic("pack:2 numa:2 l3:2 core:4 pu:2");
  const cct::MachineInfo m = cct::tuner::describe_machine(topo, 6);
  CHECK(m.fingerprint == topo.fingerprint());
  CHECK(m.summary == topo.summary());
  CHECK((m.nodes == 1 && m.ranks_per_node == 6));
  CHECK((m.packages == 2 && m.numa_nodes == 4 && m.cores == 32 && m.pus == 64));
  CHECK(m.caches.rfind("L3 ", 0) == 0);
  CHECK(m.caches.find(" x8") != std::string::npos);
}

TEST_CASE("rules_table shows one line per size rule", "[tuner]") {
  const auto rules = cct::tuner::build_rules(winners_of({
      row("bcast", 2, 64, "binomial", "", 1e-6),
      row("bcast", 2, 1024, "knomial", "radix=4", 2.5e-6),
  }));
  const std::string table = cct::tuner::rules_table(rules, cct::test::registry());
  INFO(table);
  CHECK(table.find("collective") == 0);
  // One candidate a size: no margin to say.
  CHECK(table.find(
            "bcast       shm        1-max  0-1k    binomial          1.00       -       -\n") !=
        std::string::npos);
  CHECK(table.find("1k-max  knomial(radix=4)  2.50       -       -\n") != std::string::npos);
}

TEST_CASE("library_kept counts the size ranges the MPI library's own call won", "[tuner]") {
  const auto mixed = cct::tuner::build_rules(winners_of({
      row("bcast", 2, 64, "binomial", "", 1e-6),
      row("bcast", 2, 1024, "mpi", "", 2e-6),
      row("bcast", 2, 65536, "knomial", "radix=4", 9e-6),
  }));
  CHECK(cct::tuner::library_kept(mixed, cct::test::registry()) ==
        "the MPI library's own call (mpi) kept in 1 of 3 size "
        "ranges\n");
  const auto none =
      cct::tuner::build_rules(winners_of({row("bcast", 2, 64, "binomial", "", 1e-6)}));
  CHECK(cct::tuner::library_kept(none, cct::test::registry()).empty());
}

// Each rule records, after its winner, the fastest of the other kind and
// then the fastest algorithm named by neither, so that a call the winner
// cannot run takes a measured alternative, not the built-in default.
TEST_CASE("each rule records the best candidate of the other kind, then the next algorithm",
          "[tuner]") {
  const std::vector<cct::RankBucket> buckets = bcast_buckets({
      row("bcast", 2, 64, "mpi", "", 1e-6),
      row("bcast", 2, 64, "binomial", "", 3e-6),
      row("bcast", 2, 64, "knomial", "radix=4", 2e-6),
      row("bcast", 2, 64, "knomial", "radix=8", 2.5e-6),
      row("bcast", 2, 65536, "chain", "segment=32k", 5e-6),
      row("bcast", 2, 65536, "binomial", "", 8e-6),
      row("bcast", 2, 65536, "mpi", "", 9e-6),
      row("bcast", 2, 65536, "knomial", "radix=4", 7e-6),
  });
  REQUIRE(buckets[0].sizes.size() == 2);
  const cct::SizeRule& small = buckets[0].sizes[0];
  CHECK(small.algorithm == "mpi");
  REQUIRE(small.fallbacks.size() == 2);
  CHECK(small.fallbacks[0].algorithm == "knomial");
  CHECK(small.fallbacks[0].params.at("radix") == 4);
  CHECK(small.fallbacks[0].median_s == 2e-6);
  CHECK(small.fallbacks[1].algorithm == "binomial");
  const cct::SizeRule& large = buckets[0].sizes[1];
  CHECK(large.algorithm == "chain");
  REQUIRE(large.fallbacks.size() == 2);
  CHECK(large.fallbacks[0].algorithm == "mpi");
  CHECK(large.fallbacks[1].algorithm == "knomial");
  const std::string table = cct::tuner::rules_table(
      cct::tuner::build_rules(winners_of(
          {row("bcast", 2, 64, "mpi", "", 1e-6), row("bcast", 2, 64, "binomial", "", 3e-6)})),
      cct::test::registry());
  // binomial 3x the library's time: a margin of +200%, beyond the noise.
  CHECK(table.find("mpi        1.00       +200%   binomial\n") != std::string::npos);
}

TEST_CASE("pick_winners switches once where one switch pays", "[tuner]") {
  const std::vector<ResultRow> rows{
      row("bcast", 2, 1, "binomial", "", 1.00e-6),
      row("bcast", 2, 1, "chain", "segment=32k", 1.10e-6),
      row("bcast", 2, 2, "binomial", "", 1.04e-6),
      row("bcast", 2, 2, "chain", "segment=32k", 1.00e-6),
      row("bcast", 2, 4, "binomial", "", 1.20e-6),
      row("bcast", 2, 4, "chain", "segment=32k", 1.00e-6),
      row("bcast", 4, 1, "chain", "segment=32k", 1.03e-6),
      row("bcast", 4, 1, "binomial", "", 1.00e-6),
  };
  const auto w = winners_of(rows);
  REQUIRE(w.size() == 4);
  CHECK(w[0].algorithm == "binomial");  // fastest
  // One switch pays for itself (binomial 20% behind at 4 B); made at 2 B,
  // where binomial is 4% behind, it costs nothing more.
  CHECK(w[1].algorithm == "chain");
  CHECK(w[2].algorithm == "chain");
  CHECK(w[3].algorithm == "binomial");  // another np: no memory of np=2
}

// row() whose fastest repetition was `min_s`: the noise of its figures.
ResultRow with_min(double min_s, ResultRow r) {
  r.result.min_s = min_s;
  return r;
}

TEST_CASE("pick_winners: the noise of the fastest's figures, 5% to 10%, prices a switch",
          "[tuner]") {
  const std::vector<ResultRow> rows{
      row("bcast", 2, 1, "binomial", "", 1.00e-6),
      row("bcast", 2, 1, "knomial", "radix=4", 1.20e-6),
      // The fastest's median lies 8% above its best repetition: the
      // switch to knomial costs 8% of a grid step, paid for 4 B anyway;
      // binomial is 7% slower at 2 B, so the switch is made there.
      row("bcast", 2, 2, "binomial", "", 1.07e-6),
      with_min(0.92e-6, row("bcast", 2, 2, "knomial", "radix=4", 1.00e-6)),
      // However noisy the fastest, more than 10% is a real difference.
      row("bcast", 2, 4, "binomial", "", 1.11e-6),
      with_min(0.50e-6, row("bcast", 2, 4, "knomial", "radix=4", 1.00e-6)),
  };
  const auto w = winners_of(rows);
  REQUIRE(w.size() == 3);
  CHECK(w[0].algorithm == "binomial");
  CHECK(w[1].algorithm == "knomial");
  CHECK(w[2].algorithm == "knomial");
  CHECK(cct::tuner::tie_margin({.median_s = 1, .min_s = 1}) == 0.05);
  CHECK(cct::tuner::tie_margin({.median_s = 1, .min_s = 0.92}) == Approx(0.08));
  CHECK(cct::tuner::tie_margin({.median_s = 1, .min_s = 0.1}) == 0.10);
}

TEST_CASE("pick_winners: among tied values of one algorithm, its defaults", "[tuner]") {
  const std::vector<ResultRow> rows{
      row("bcast", 2, 1, "knomial", "radix=8", 1.00e-6),
      // The default, 2% behind: within half the noise (5%), so radix 8
      // counts as no faster (segmentation.hpp).
      row("bcast", 2, 1, "knomial", "radix=4", 1.02e-6),
      row("bcast", 2, 1, "binomial", "", 1.04e-6),
      row("bcast", 4, 1, "knomial", "radix=8", 1.00e-6),
      row("bcast", 4, 1, "knomial", "radix=4", 1.20e-6),
  };
  const auto w = winners_of(rows);
  REQUIRE(w.size() == 2);
  CHECK(w[0].choice == "knomial(radix=4)");
  CHECK(w[0].default_params);
  CHECK(w[1].choice == "knomial(radix=8)");  // 20% faster than the defaults
}

TEST_CASE("build_rules puts a boundary at a readable size between the measured ones", "[tuner]") {
  CHECK(cct::tuner::readable_boundary(64, 1024) == 1024);
  CHECK(cct::tuner::readable_boundary(1 << 20, 1763487) == 1572864);  // 1536k
  CHECK(cct::tuner::readable_boundary(2048, 3000) == 2560);
  CHECK(cct::tuner::readable_boundary(0, 1) == 1);
  CHECK(cct::tuner::readable_boundary(1000, 1001) == 1001);
  const auto buckets = bcast_buckets({
      row("bcast", 2, 1 << 20, "binomial", "", 1e-4),
      row("bcast", 2, 1763487, "chain", "segment=32k", 1e-4),
      row("bcast", 2, 2 << 20, "chain", "segment=32k", 2e-4),
  });
  REQUIRE(buckets.size() == 1);
  CHECK(ranges(buckets[0]) ==
        std::vector<Range>{{0, 1572864, "binomial"}, {1572864, kMaxBytes, "chain"}});
}

TEST_CASE("pick_winners keeps the MPI library's own call unless beaten beyond the noise",
          "[tuner]") {
  // One size per communicator size, each a bucket of its own.
  const std::vector<ResultRow> rows{
      row("bcast", 2, 1, "binomial", "", 1.00e-6),
      row("bcast", 2, 1, "mpi", "", 1.04e-6),
      row("bcast", 3, 1, "binomial", "", 1.00e-6),
      row("bcast", 3, 1, "mpi", "", 1.10e-6),
      row("bcast", 4, 1, "chain", "segment=32k", 1.00e-6),
      row("bcast", 4, 1, "binomial", "", 1.01e-6),
      row("bcast", 4, 1, "mpi", "", 1.04e-6),
  };
  const auto w = winners_of(rows);
  REQUIRE(w.size() == 3);
  CHECK(w[0].algorithm == "mpi");       // 4% slower than binomial: the library stays
  CHECK(w[1].algorithm == "binomial");  // 10% faster: replaces it
  CHECK(w[2].algorithm == "mpi");       // within the noise of two faster ones
  // Where the library loses 10% at one size of three and ties the others,
  // a candidate faster at every size takes them all: keeping the library
  // around that size would cost two switches for less.
  const std::vector<ResultRow> sizes{
      row("bcast", 2, 1, "binomial", "", 1.00e-6), row("bcast", 2, 1, "mpi", "", 1.04e-6),
      row("bcast", 2, 2, "binomial", "", 1.00e-6), row("bcast", 2, 2, "mpi", "", 1.10e-6),
      row("bcast", 2, 4, "binomial", "", 1.00e-6), row("bcast", 2, 4, "mpi", "", 1.04e-6),
  };
  CHECK(ranges(bcast_buckets(sizes)[0]) == std::vector<Range>{{0, kMaxBytes, "binomial"}});
}

TEST_CASE("pick_winners: full measurements beat pruned rows, check rows never count", "[tuner]") {
  const std::vector<ResultRow> rows{
      // A pruned row with a lucky cheap figure does not beat the finalists.
      staged(row("bcast", 2, 64, "binomial", "", 0.5e-6), Stage::kPruned),
      row("bcast", 2, 64, "chain", "segment=32k", 1.0e-6),
      // Where only pruned rows exist (a run stopped mid-size), they decide
      // (chain, not measured there, stands at 1 us between its sizes).
      staged(row("bcast", 2, 128, "binomial", "", 2e-6), Stage::kPruned),
      staged(row("bcast", 2, 128, "knomial", "radix=4", 0.5e-6), Stage::kPruned),
      // A crossover row competes like a final one.
      staged(row("bcast", 2, 181, "chain", "segment=32k", 1e-6), Stage::kCrossover),
      // A check row is not a point of the profile at all.
      staged(row("bcast", 2, 192, "binomial", "", 1e-9), Stage::kCheck),
  };
  const auto w = winners_of(rows);
  REQUIRE(w.size() == 3);
  CHECK((w[0].bytes == 64 && w[0].algorithm == "chain"));
  CHECK((w[1].bytes == 128 && w[1].algorithm == "knomial"));
  CHECK((w[2].bytes == 181 && w[2].algorithm == "chain"));
}

TEST_CASE("profile_accuracy compares the profile's choice with the fastest at checks", "[tuner]") {
  std::vector<ResultRow> rows{
      row("bcast", 2, 64, "binomial", "", 1e-6),
      row("bcast", 2, 64, "chain", "segment=32k", 2e-6),
      row("bcast", 2, 128, "binomial", "", 3e-6),
      row("bcast", 2, 128, "chain", "segment=32k", 2e-6),
  };
  const cct::Profile profile{.rules = cct::tuner::build_rules(winners_of(rows))};
  // At 96 the profile says binomial (the winner of 64): 1.5x the fastest.
  rows.push_back(staged(row("bcast", 2, 96, "binomial", "", 3e-6), Stage::kCheck));
  rows.push_back(staged(row("bcast", 2, 96, "chain", "segment=32k", 2e-6), Stage::kCheck));
  // At 192 it says chain, which is the fastest there.
  rows.push_back(staged(row("bcast", 2, 192, "chain", "segment=32k", 2e-6), Stage::kCheck));
  rows.push_back(staged(row("bcast", 2, 192, "binomial", "", 2.05e-6), Stage::kCheck));
  const cct::tuner::Accuracy a = cct::tuner::profile_accuracy(rows, profile, cct::test::registry());
  CHECK(a.checked == 2);
  CHECK(a.within == 1);
  CHECK(a.worst_ratio == Approx(1.5));
  CHECK(a.mean_ratio == Approx(1.25));
  CHECK_THAT(a.worst, Catch::Contains("bcast shm np=2 96: binomial 1.5x chain(segment=32k)"));
  CHECK_THAT(cct::tuner::describe(a), Catch::StartsWith("off-grid checks: 2 sizes"));
  // The miss is binomial's, not the library's: nothing said of the library.
  CHECK(a.missed_on_library == 0);
  CHECK_THAT(cct::tuner::describe(a), !Catch::Contains("kept on the library"));
}

TEST_CASE("profile_accuracy weighs each candidate by the slower of its check and recheck",
          "[tuner]") {
  std::vector<ResultRow> rows{
      row("bcast", 2, 64, "mpi", "", 1e-6),
      row("bcast", 2, 64, "chain", "segment=32k", 2e-6),
      row("bcast", 2, 128, "mpi", "", 1e-6),
      row("bcast", 2, 128, "chain", "segment=32k", 2e-6),
  };
  const cct::Profile profile{.rules = cct::tuner::build_rules(winners_of(rows))};
  // At 96 the profile keeps the library. The first job's check put chain
  // 1.5x ahead of it; the second job's recheck put chain at 2x its figure
  // there, the library steady: by its slower job chain is no faster.
  rows.push_back(staged(row("bcast", 2, 96, "mpi", "", 3e-6), Stage::kCheck));
  rows.push_back(staged(row("bcast", 2, 96, "chain", "segment=32k", 2e-6), Stage::kCheck));
  rows.push_back(staged(row("bcast", 2, 96, "mpi", "", 2.9e-6), Stage::kRecheck));
  rows.push_back(staged(row("bcast", 2, 96, "chain", "segment=32k", 4e-6), Stage::kRecheck));
  const cct::tuner::Accuracy a = cct::tuner::profile_accuracy(rows, profile, cct::test::registry());
  CHECK(a.checked == 1);
  CHECK(a.within == 1);
  CHECK(a.worst_ratio == Approx(1));
  // Without the recheck, the one job's figures: the library 1.5x chain.
  rows.resize(rows.size() - 2);
  const cct::tuner::Accuracy one_job =
      cct::tuner::profile_accuracy(rows, profile, cct::test::registry());
  CHECK(one_job.within == 0);
  CHECK(one_job.worst_ratio == Approx(1.5));
  // That miss keeps the library: said apart from a pick gone wrong.
  CHECK(one_job.missed_on_library == 1);
  CHECK_THAT(cct::tuner::describe(one_job),
             Catch::Contains("at 0; 1 missed, 1 of them kept on the library; mean 1.5x"));
}

TEST_CASE("profile_accuracy: against a one rule for every size, another choice pays the agreement",
          "[tuner]") {
  // gatherv's profile has one rule, linear, for every size (no rank knows
  // the size alone: a rule by size would make every call agree on it
  // first, measured as the 8-byte allreduce: 1 us here). At 96 B binomial
  // is timed 0.5 us faster than linear: not faster once it pays the
  // agreement. At 6 KiB it is 2 us faster: 1.5x even so.
  std::vector<ResultRow> rows{
      row("gatherv", 2, 64, "linear", "", 1.0e-6),
      row("gatherv", 2, 64, "binomial", "", 1.2e-6),
      row("gatherv", 2, 4096, "linear", "", 2e-6),
      row("gatherv", 2, 4096, "binomial", "", 3e-6),
      row("allreduce", 2, 8, "recursive_doubling", "", 1e-6),
  };
  cct::Profile profile{.rules = cct::tuner::build_rules(winners_of(rows))};
  REQUIRE(profile.rules.at(CCT_GATHERV).at("shm")[0].sizes.size() == 1);
  rows.push_back(staged(row("gatherv", 2, 96, "linear", "", 1.5e-6), Stage::kCheck));
  rows.push_back(staged(row("gatherv", 2, 96, "binomial", "", 1.0e-6), Stage::kCheck));
  rows.push_back(staged(row("gatherv", 2, 6144, "linear", "", 6e-6), Stage::kCheck));
  rows.push_back(staged(row("gatherv", 2, 6144, "binomial", "", 3e-6), Stage::kCheck));
  const cct::tuner::Accuracy a = cct::tuner::profile_accuracy(rows, profile, cct::test::registry());
  CHECK(a.checked == 2);
  CHECK(a.within == 1);
  CHECK(a.worst_ratio == Approx(1.5));
  CHECK_THAT(a.worst, Catch::Contains("gatherv shm np=2 6k: linear 1.5x binomial"));
  // bcast, whose size every rank knows, pays no agreement: 96 B is 1.5x.
  for (ResultRow& r : rows)
    if (r.collective == "gatherv") {
      r.collective = "bcast";
      if (r.algorithm == "linear") r.algorithm = "scatter_allgather";
    }
  profile.rules = cct::tuner::build_rules(winners_of(rows));
  CHECK(cct::tuner::profile_accuracy(rows, profile, cct::test::registry()).within == 0);
}

TEST_CASE("build_rules: each shape (nodes, np) gets its own buckets", "[tuner]") {
  const std::vector<ResultRow> rows{
      on_nodes(2, row("bcast", 8, 64, "binomial", "", 1e-6)),
      row("bcast", 2, 64, "binomial", "", 1e-6),
      on_nodes(2, row("bcast", 4, 64, "chain", "segment=32k", 1e-6)),
      row("bcast", 4, 64, "knomial", "radix=4", 1e-6),
      // The same point on 2 nodes is another group: its fastest wins there.
      on_nodes(2, row("bcast", 4, 64, "knomial", "radix=4", 2e-6)),
  };
  const std::vector<cct::tuner::Winner> best = winners_of(rows);
  REQUIRE(best.size() == 4);
  CHECK((best[2].nodes == 2 && best[2].np == 4 && best[2].algorithm == "chain"));
  const auto buckets = bcast_buckets(rows);
  REQUIRE(buckets.size() == 4);
  auto shape = [](const cct::RankBucket& b) { return std::tuple(b.nodes, b.np_lo, b.np_hi); };
  CHECK(shape(buckets[0]) == std::tuple(1, 1, 3));
  CHECK(shape(buckets[1]) == std::tuple(1, 4, kMaxRanks));
  // A 2-node communicator has at least 2 ranks.
  CHECK(shape(buckets[2]) == std::tuple(2, 2, 7));
  CHECK(shape(buckets[3]) == std::tuple(2, 8, kMaxRanks));
  CHECK(buckets[1].sizes[0].algorithm == "knomial");
  CHECK(buckets[2].sizes[0].algorithm == "chain");

  const cct::Profile profile{.rules = cct::tuner::build_rules(best)};
  CHECK(cct::profile_from_yaml(cct::profile_to_yaml(profile), "shapes", &cct::test::registry()) ==
        profile);
  const std::string table = cct::tuner::rules_table(profile.rules, cct::test::registry());
  INFO(table);
  CHECK(table.find("shm        1-3              0-max  binomial") != std::string::npos);
  CHECK(table.find("shm        2-7 (2 nodes)    0-max  chain") != std::string::npos);
}

TEST_CASE("pick_winners: no memory of the previous size across node counts", "[tuner]") {
  const std::vector<ResultRow> rows{
      row("bcast", 4, 1, "binomial", "", 1.00e-6),
      row("bcast", 4, 1, "chain", "segment=32k", 1.03e-6),
      on_nodes(2, row("bcast", 4, 1, "chain", "segment=32k", 1.00e-6)),
      on_nodes(2, row("bcast", 4, 1, "binomial", "", 1.03e-6)),
  };
  const auto w = winners_of(rows);
  REQUIRE(w.size() == 2);
  CHECK(w[0].algorithm == "binomial");
  CHECK((w[1].nodes == 2 && w[1].algorithm == "chain"));
}

TEST_CASE("profile_accuracy judges each check by the rules of its own shape", "[tuner]") {
  auto check = [](int nodes, const std::string& alg, const std::string& params, double s) {
    return staged(on_nodes(nodes, row("bcast", 4, 96, alg, params, s)), Stage::kCheck);
  };
  std::vector<ResultRow> rows{
      row("bcast", 4, 64, "binomial", "", 1e-6),
      row("bcast", 4, 64, "chain", "segment=32k", 2e-6),
      on_nodes(2, row("bcast", 4, 64, "chain", "segment=32k", 1e-6)),
      on_nodes(2, row("bcast", 4, 64, "binomial", "", 2e-6)),
  };
  const cct::Profile profile{.rules = cct::tuner::build_rules(winners_of(rows))};
  // On 1 node the profile says binomial, the fastest; on 2 nodes chain, 2x.
  rows.push_back(check(1, "binomial", "", 1e-6));
  rows.push_back(check(1, "chain", "segment=32k", 2e-6));
  rows.push_back(check(2, "chain", "segment=32k", 4e-6));
  rows.push_back(check(2, "binomial", "", 2e-6));
  const cct::tuner::Accuracy a = cct::tuner::profile_accuracy(rows, profile, cct::test::registry());
  CHECK(a.checked == 2);
  CHECK(a.within == 1);
  CHECK(a.worst_ratio == Approx(2));
  CHECK_THAT(a.worst, Catch::StartsWith("bcast shm np=4 (2 nodes) 96: chain(segment=32k) 2x"));
}

TEST_CASE("pick_winners: a candidate that failed in a shape is never chosen there", "[tuner]") {
  ResultRow crashed = row("bcast", 2, 4096, "knomial", "radix=4", 0);
  crashed.stage = cct::tuner::Stage::kFailed;
  const auto w = winners_of({
      row("bcast", 2, 64, "knomial", "radix=4", 0.5e-6),  // fastest, but it crashed at 4k
      row("bcast", 2, 64, "binomial", "", 1.0e-6),
      crashed,
      row("bcast", 2, 4096, "binomial", "", 2.0e-6),
      row("bcast", 4, 64, "knomial", "radix=4", 0.5e-6),  // another shape: not left out
      row("bcast", 4, 64, "binomial", "", 1.0e-6),
  });
  REQUIRE(w.size() == 3);
  CHECK(w[0].algorithm == "binomial");
  CHECK(w[1].algorithm == "binomial");
  CHECK(w[2].algorithm == "knomial");
}

TEST_CASE("pick_winners: one rule for every size where agreeing on the size costs more",
          "[tuner]") {
  // gatherv, tuned without MPI (no library's call measured): no rank knows
  // the size alone, so winners that differ by size make every call agree
  // first, costed as the cheapest call at the smallest size (1 us here).
  // linear at every size, against winner + agreement: 1.2/2, 2/3, 100/101,
  // geometric mean 0.73; binomial's is 0.82.
  std::vector<ResultRow> rows{
      row("gatherv", 2, 64, "binomial", "", 1.0e-6),
      row("gatherv", 2, 64, "linear", "", 1.2e-6),
      row("gatherv", 2, 4096, "linear", "", 2e-6),
      row("gatherv", 2, 4096, "binomial", "", 3e-6),
      row("gatherv", 2, 1 << 20, "linear", "", 1e-4),
      row("gatherv", 2, 1 << 20, "binomial", "", 1.1e-4),
  };
  cct::tuner::Winners w = cct::tuner::pick_winners(rows, cct::test::registry());
  REQUIRE(w.best.size() == 3);
  for (const auto& winner : w.best) CHECK(winner.algorithm == "linear");
  REQUIRE(w.one_rule.size() == 1);
  CHECK_THAT(w.one_rule[0], Catch::StartsWith("gatherv shm np=2: one rule for every size, linear"));
  CHECK_THAT(w.one_rule[0], Catch::Contains("about 1.00 us") && Catch::Contains("at 0.73"));

  // bcast's size is known to every rank: no agreement, the sizes' winners.
  for (ResultRow& r : rows)
    r.collective = "bcast", r.algorithm = r.algorithm == "linear" ? "binomial" : "mpi";
  w = cct::tuner::pick_winners(rows, cct::test::registry());
  CHECK(w.one_rule.empty());
  REQUIRE(w.best.size() == 3);
  CHECK(w.best[0].algorithm == "mpi");
  CHECK(w.best[1].algorithm == "binomial");
}

// The agreement's cost is the measured allreduce of 8 bytes with the
// built-in default where the tuner has it for the shape: here 3 us, which
// makes linear at every size (5/4, 2/5, 100/103: mean 0.79) beat the
// winners that the 1 us estimate of the case below keeps.
TEST_CASE("pick_winners: the agreement costs what was measured for it on the shape", "[tuner]") {
  std::vector<ResultRow> rows{
      row("gatherv", 2, 64, "binomial", "", 1e-6),
      row("gatherv", 2, 64, "linear", "", 5e-6),
      row("gatherv", 2, 4096, "linear", "", 2e-6),
      row("gatherv", 2, 4096, "binomial", "", 2e-5),
      row("gatherv", 2, 1 << 20, "linear", "", 1e-4),
      row("gatherv", 2, 1 << 20, "binomial", "", 3e-4),
      row("allreduce", 2, 8, "recursive_doubling", "", 3e-6),
      row("allreduce", 4, 8, "recursive_doubling", "", 9e-6),  // another shape
  };
  const cct::tuner::Winners w = cct::tuner::pick_winners(rows, cct::test::registry());
  REQUIRE(w.one_rule.size() == 1);
  CHECK_THAT(w.one_rule[0],
             Catch::StartsWith("gatherv shm np=2: one rule for every size, linear") &&
                 Catch::Contains("measured 3.00 us") && Catch::Contains("at 0.79"));
}

// A run of sizes whose winner a neighbouring run's choice matches within
// the noise takes that choice: fewer boundaries than the measurements
// bear out are written. binomial wins at 64 B, knomial 3% behind; knomial
// wins 128 B by far, and binomial 1 KiB by far.
TEST_CASE("pick_winners merges a run into its neighbour's choice where that ties every size",
          "[tuner]") {
  const std::vector<cct::RankBucket> buckets = bcast_buckets({
      row("bcast", 2, 64, "binomial", "", 1.00e-6),
      row("bcast", 2, 64, "knomial", "radix=4", 1.03e-6),
      row("bcast", 2, 128, "knomial", "radix=4", 1.0e-6),
      row("bcast", 2, 128, "binomial", "", 1.5e-6),
      row("bcast", 2, 1024, "binomial", "", 1.0e-6),
      row("bcast", 2, 1024, "knomial", "radix=4", 1.3e-6),
  });
  CHECK(ranges(buckets[0]) ==
        std::vector<Range>{{0, 1024, "knomial"}, {1024, kMaxBytes, "binomial"}});
}

TEST_CASE("pick_winners: the sizes' winners stay where they save more than the agreement",
          "[tuner]") {
  // Without the library: linear 5/2, 2/3, 100/101 (mean 1.18); binomial
  // 1/2, 20/3, 300/101 (2.15): neither beats winners + agreement.
  const std::vector<ResultRow> rows{
      row("gatherv", 2, 64, "binomial", "", 1e-6),
      row("gatherv", 2, 64, "linear", "", 5e-6),
      row("gatherv", 2, 4096, "linear", "", 2e-6),
      row("gatherv", 2, 4096, "binomial", "", 2e-5),
      row("gatherv", 2, 1 << 20, "linear", "", 1e-4),
      row("gatherv", 2, 1 << 20, "binomial", "", 3e-4),
  };
  const cct::tuner::Winners w = cct::tuner::pick_winners(rows, cct::test::registry());
  CHECK(w.one_rule.empty());
  REQUIRE(w.best.size() == 3);
  CHECK(w.best[0].algorithm == "binomial");
  CHECK(w.best[1].algorithm == "linear");
}

// Tuned under MPI (the library's call measured at every size): nothing
// may be slower than it by more than 5% at any size. Choosing by size
// pays the agreement (3 us, measured) on a 1 us call at 64 B, and linear
// is 5x slower there; binomial is slower nowhere (1.02/1, 2.5/20,
// 110/300: mean 0.36), so it takes every size, the crossover size where
// the library was not measured too. Without it, the library.
TEST_CASE("pick_winners: under MPI, one rule for every size where choosing by size harms one",
          "[tuner]") {
  std::vector<ResultRow> rows{
      row("gatherv", 2, 64, "mpi", "", 1e-6),
      row("gatherv", 2, 64, "linear", "", 5e-6),
      row("gatherv", 2, 64, "binomial", "", 1.02e-6),
      // A crossover size: only its neighbours' contenders measured there.
      row("gatherv", 2, 2048, "linear", "", 1.5e-6),
      row("gatherv", 2, 2048, "binomial", "", 2e-6),
      row("gatherv", 2, 4096, "linear", "", 2e-6),
      row("gatherv", 2, 4096, "mpi", "", 2e-5),
      row("gatherv", 2, 4096, "binomial", "", 2.5e-6),
      row("gatherv", 2, 1 << 20, "linear", "", 1e-4),
      row("gatherv", 2, 1 << 20, "mpi", "", 3e-4),
      row("gatherv", 2, 1 << 20, "binomial", "", 1.1e-4),
      row("allreduce", 2, 8, "recursive_doubling", "", 3e-6),
  };
  cct::tuner::Winners w = cct::tuner::pick_winners(rows, cct::test::registry());
  REQUIRE(w.one_rule.size() == 1);
  CHECK_THAT(
      w.one_rule[0],
      Catch::StartsWith("gatherv shm np=2: one rule for every size, binomial") &&
          Catch::Contains("measured 3.00 us") &&
          Catch::Contains("leaves 1 of 3 sizes more than 5% slower than the MPI library's") &&
          Catch::Contains("(0.36 of the library"));
  REQUIRE(w.best.size() == 5);  // the allreduce's first
  for (const auto& winner : w.best)
    if (winner.collective == CCT_GATHERV) CHECK(winner.algorithm == "binomial");
  CHECK(w.best[2].bytes == 2048);
  std::erase_if(rows, [](const ResultRow& r) { return r.algorithm == "binomial"; });
  w = cct::tuner::pick_winners(rows, cct::test::registry());
  REQUIRE(w.one_rule.size() == 1);
  CHECK_THAT(w.one_rule[0], Catch::StartsWith("gatherv shm np=2: one rule for every size, mpi"));
  REQUIRE(w.best.size() == 5);
  for (const auto& winner : w.best)
    if (winner.collective == CCT_GATHERV) CHECK(winner.algorithm == "mpi");
  CHECK(w.best[2].bytes == 2048);  // the library's row of 64 B stands in
}

// Where choosing by size, agreement paid, is nowhere slower than the
// library beyond 5% (1.1/2, 2.1/20, 100.1/300), the sizes' winners stay.
TEST_CASE("pick_winners: under MPI, the sizes' winners stay where they harm no size", "[tuner]") {
  const std::vector<ResultRow> rows{
      row("gatherv", 2, 64, "linear", "", 1e-6),
      row("gatherv", 2, 64, "binomial", "", 3e-6),
      row("gatherv", 2, 64, "mpi", "", 2e-6),
      row("gatherv", 2, 4096, "binomial", "", 2e-6),
      row("gatherv", 2, 4096, "linear", "", 2e-5),
      row("gatherv", 2, 4096, "mpi", "", 2e-5),
      row("gatherv", 2, 1 << 20, "binomial", "", 1e-4),
      row("gatherv", 2, 1 << 20, "linear", "", 3e-4),
      row("gatherv", 2, 1 << 20, "mpi", "", 3e-4),
      row("allreduce", 2, 8, "recursive_doubling", "", 1e-7),
  };
  const cct::tuner::Winners w = cct::tuner::pick_winners(rows, cct::test::registry());
  CHECK(w.one_rule.empty());
  REQUIRE(w.best.size() == 4);  // the allreduce's first
  CHECK(w.best[1].algorithm == "linear");
  CHECK(w.best[2].algorithm == "binomial");
  CHECK(w.best[3].algorithm == "binomial");
}

// The picks of a bucket's sizes are made as one segmentation
// (tuner/segmentation.hpp): a switch costs the run's noise (here 5%, the
// figures' repetitions all alike) in the loss of one grid step.
namespace {

// Rows of bcast on 2 ranks at 1 B, 2 B, ... 2^(n-1) B, `a` and `b`
// measured at each with the figures of `us(i)` (microseconds).
template <class Figures>
std::vector<ResultRow> two_candidates(int n, const std::string& a, const std::string& b,
                                      Figures us) {
  std::vector<ResultRow> rows;
  for (int i = 0; i < n; ++i) {
    const auto [ta, tb] = us(i);
    rows.push_back(row("bcast", 2, int64_t{1} << i, a, "", ta * 1e-6));
    rows.push_back(row("bcast", 2, int64_t{1} << i, b, "", tb * 1e-6));
  }
  return rows;
}

}  // namespace

TEST_CASE("segmentation: a near-tie gives one range, however it alternates", "[tuner]") {
  // binomial and scatter_allgather within 3% of each other, the faster
  // alternating.
  const std::vector<ResultRow> rows =
      two_candidates(10, "binomial", "scatter_allgather", [](int i) {
        return std::pair{i % 2 ? 1.00 : 1.03, i % 2 ? 1.03 : 1.00};
      });
  const auto buckets = bcast_buckets(rows);
  REQUIRE(buckets.size() == 1);
  REQUIRE(buckets[0].sizes.size() == 1);
  // Said: over the range the other was as fast (3% slower at half the
  // sizes, 3% faster at the others: a geometric mean of 1), within the
  // noise (5%).
  const cct::SizeRule& rule = buckets[0].sizes[0];
  REQUIRE(rule.margin.has_value());
  CHECK(*rule.margin == 0.0);
  CHECK(rule.noise == 0.05);
  CHECK_THAT(
      cct::tuner::rules_table(cct::tuner::build_rules(winners_of(rows)), cct::test::registry()),
      Catch::Contains("+0% tie"));
}

TEST_CASE("segmentation: a real crossover gives two ranges, the boundary at the crossing",
          "[tuner]") {
  // binomial 30% ahead up to 64 B, scatter_allgather 30% ahead from 128 B.
  const auto buckets = bcast_buckets(two_candidates(12, "binomial", "scatter_allgather", [](int i) {
    return i <= 6 ? std::pair{1.0, 1.3} : std::pair{1.3, 1.0};
  }));
  CHECK(ranges(buckets[0]) ==
        std::vector<Range>{{0, 128, "binomial"}, {128, kMaxBytes, "scatter_allgather"}});
  for (const cct::SizeRule& r : buckets[0].sizes) CHECK(r.margin == Approx(0.3));
}

TEST_CASE("segmentation: a range's margin is over its sizes, not its closest one", "[tuner]") {
  // binomial 30% ahead up to 32 B, 4% at 64 B, scatter_allgather 30% ahead
  // from 128 B: binomial's range wins by 26% over its sizes (a
  // geometric mean), beyond the noise, though its last size is a near-tie.
  const auto buckets = bcast_buckets(two_candidates(12, "binomial", "scatter_allgather", [](int i) {
    if (i == 6) return std::pair{1.0, 1.04};
    return i < 6 ? std::pair{1.0, 1.3} : std::pair{1.3, 1.0};
  }));
  REQUIRE(buckets[0].sizes.size() == 2);
  const cct::SizeRule& first = buckets[0].sizes[0];
  CHECK(first.algorithm == "binomial");
  REQUIRE(first.margin.has_value());
  CHECK(*first.margin == Approx(std::pow(std::pow(1.3, 6) * 1.04, 1.0 / 7) - 1).margin(1e-3));
  CHECK(first.noise == 0.05);
}

TEST_CASE("segmentation: the library wins every tie within the noise", "[tuner]") {
  // mpi 4% behind binomial at every size, once 6% ahead: the library
  // everywhere; 20% behind from 256 B: binomial there.
  auto rows = two_candidates(8, "binomial", "mpi", [](int i) {
    return std::pair{1.0, i == 3 ? 0.94 : 1.04};
  });
  CHECK(ranges(bcast_buckets(rows)[0]) == std::vector<Range>{{0, kMaxBytes, "mpi"}});
  rows = two_candidates(12, "binomial", "mpi", [](int i) {
    return std::pair{1.0, i < 8 ? 1.04 : 1.2};
  });
  CHECK(ranges(bcast_buckets(rows)[0]) ==
        std::vector<Range>{{0, 256, "mpi"}, {256, kMaxBytes, "binomial"}});
}

TEST_CASE("segmentation: an island pays for its two switches beyond the noise, or merges",
          "[tuner]") {
  // scatter_allgather 12% ahead of binomial at 8 B alone. With figures whose
  // repetitions agree (5% noise: two switches cost 0.10 of a grid step)
  // the island stays; where the fastest's median lies 10% above its best
  // repetition, the same difference is within the noise: one range.
  const auto island = [](double min_over_median) {
    std::vector<ResultRow> rows = two_candidates(8, "binomial", "scatter_allgather", [](int i) {
      return std::pair{1.0, i == 3 ? 0.88 : 1.5};
    });
    for (ResultRow& r : rows) r.result.min_s = r.result.median_s * min_over_median;
    return ranges(bcast_buckets(rows)[0]);
  };
  CHECK(island(1.0) == std::vector<Range>{{0, 8, "binomial"},
                                          {8, 16, "scatter_allgather"},
                                          {16, kMaxBytes, "binomial"}});
  CHECK(island(0.9) == std::vector<Range>{{0, kMaxBytes, "binomial"}});
}

TEST_CASE("segmentation: of two candidates of one median, the steadier", "[tuner]") {
  // scatter_allgather's repetitions spread from 0.5 to its median, binomial's not.
  for (bool spread_first : {false, true}) {
    std::vector<ResultRow> rows = two_candidates(6, "binomial", "scatter_allgather", [](int) {
      return std::pair{1.0, 1.0};
    });
    for (ResultRow& r : rows)
      if ((r.algorithm == "scatter_allgather") != spread_first)
        r.result.min_s = r.result.median_s * 0.5;
    CHECK(ranges(bcast_buckets(rows)[0]) ==
          std::vector<Range>{{0, kMaxBytes, spread_first ? "scatter_allgather" : "binomial"}});
  }
}

TEST_CASE("segmentation: a size where a candidate was not measured takes it between its sizes",
          "[tuner]") {
  // A crossover size (48 B) measured only binomial; linear, measured on
  // either side and ahead there by 30%, is interpolated there, and keeps
  // the range without a boundary at 48 B.
  std::vector<ResultRow> rows = two_candidates(8, "binomial", "scatter_allgather", [](int i) {
    return i < 3 ? std::pair{1.0, 1.3} : std::pair{1.3, 1.0};
  });
  rows.push_back(row("bcast", 2, 48, "binomial", "", 1.3e-6));
  const auto w = winners_of(rows);
  const auto at48 = std::ranges::find(w, int64_t{48}, &cct::tuner::Winner::bytes);
  REQUIRE(at48 != w.end());
  CHECK(at48->algorithm == "scatter_allgather");
  CHECK(at48->median_s == Approx(1.0e-6));
}

TEST_CASE(
    "segmentation: a candidate not confirmed at a size counts there scaled to the "
    "confirmations",
    "[tuner]") {
  // binomial is confirmed at 1 B and 4 B; at 2 B the confirmations are of
  // mpi and scatter_allgather, binomial has a full timing only (0.95 us,
  // where mpi's full 1.0 became 1.2 confirmed): it counts as 1.14 there,
  // 3.6% behind scatter_allgather's 1.1, less than two switches cost, and
  // keeps every size.
  const std::vector<ResultRow> rows{
      staged(row("bcast", 2, 1, "binomial", "", 1.0e-6), Stage::kConfirm),
      staged(row("bcast", 2, 1, "mpi", "", 1.2e-6), Stage::kConfirm),
      row("bcast", 2, 2, "binomial", "", 0.95e-6),
      row("bcast", 2, 2, "mpi", "", 1.0e-6),
      staged(row("bcast", 2, 2, "mpi", "", 1.2e-6), Stage::kConfirm),
      staged(row("bcast", 2, 2, "scatter_allgather", "", 1.1e-6), Stage::kConfirm),
      staged(row("bcast", 2, 4, "binomial", "", 1.0e-6), Stage::kConfirm),
      staged(row("bcast", 2, 4, "mpi", "", 1.2e-6), Stage::kConfirm),
  };
  const auto w = winners_of(rows);
  REQUIRE(w.size() == 3);
  CHECK(w[1].algorithm == "binomial");
  CHECK(w[1].median_s == Approx(1.14e-6));
  CHECK(ranges(bcast_buckets(rows)[0]) == std::vector<Range>{{0, kMaxBytes, "binomial"}});
  // A lucky screening figure never counts faster than the fastest
  // confirmed: 0.1 us scaled is 0.12, counted as scatter_allgather's 1.1.
  std::vector<ResultRow> lucky = rows;
  lucky[2] = staged(row("bcast", 2, 2, "binomial", "", 0.1e-6), Stage::kPruned);
  CHECK(winners_of(lucky)[1].median_s == Approx(1.1e-6));
  // Without a candidate timed both ways there, no ratio: binomial has no
  // figure at 2 B, and another takes it.
  lucky.erase(lucky.begin() + 3);
  CHECK(winners_of(lucky)[1].algorithm != "binomial");
}

TEST_CASE("segmentation: the noise is how far the two jobs' confirmations lie apart, where more",
          "[tuner]") {
  // scatter_allgather 12% ahead of binomial at 8 B alone, each confirmed
  // in two jobs. Where the jobs agree, the island pays for its switches
  // (5% noise); where the second job put every candidate 20% slower, the
  // noise is 20% and the island merges.
  const auto island = [](double second_job) {
    std::vector<ResultRow> rows;
    for (int i = 0; i < 8; ++i)
      for (const auto& [algorithm, us] :
           {std::pair{"binomial", 1.0}, std::pair{"scatter_allgather", i == 3 ? 0.88 : 1.5}}) {
        ResultRow first = row("bcast", 2, int64_t{1} << i, algorithm, "", us * 1e-6);
        first.stage = Stage::kConfirm;
        ResultRow second = first;
        second.stage = Stage::kReconfirm;
        // The second job is the slower for one candidate, then the other.
        (i % 2 ? first : second).result.median_s *= second_job;
        rows.push_back(first);
        rows.push_back(second);
      }
    return ranges(bcast_buckets(rows)[0]);
  };
  CHECK(island(1.0).size() == 3);
  CHECK(island(1.2) == std::vector<Range>{{0, kMaxBytes, "binomial"}});
}

namespace {

// Confirmed rows of bcast at 1 B - 128 B: `a` 30% ahead up to `last_a`,
// `b` from there on.
std::vector<ResultRow> confirmed_two(const std::string& a, const std::string& b, int64_t last_a) {
  std::vector<ResultRow> rows;
  for (int64_t bytes = 1; bytes <= 128; bytes *= 2) {
    const bool a_wins = bytes <= last_a;
    rows.push_back(row("bcast", 2, bytes, a, "", (a_wins ? 1.0 : 1.3) * 1e-6));
    rows.push_back(row("bcast", 2, bytes, b, "", (a_wins ? 1.3 : 1.0) * 1e-6));
  }
  for (ResultRow& r : rows) r.stage = Stage::kConfirm;
  return rows;
}

ResultRow crossover(int64_t bytes, const std::string& algorithm, double us) {
  ResultRow r = row("bcast", 2, bytes, algorithm, "", us * 1e-6);
  r.stage = Stage::kCrossover;
  return r;
}

// Crossover sizes that timed binomial and scatter_allgather, each
// (bytes, binomial's us, scatter_allgather's us).
void add_crossovers(std::vector<ResultRow>& rows,
                    std::initializer_list<std::tuple<int64_t, double, double>> sizes) {
  for (const auto& [bytes, binomial, other] : sizes) {
    rows.push_back(crossover(bytes, "binomial", binomial));
    rows.push_back(crossover(bytes, "scatter_allgather", other));
  }
}

}  // namespace

TEST_CASE("segmentation: a size timed between confirmed ones makes no island of its own",
          "[tuner]") {
  // The library confirmed fastest at every size; a crossover at 45 B
  // timed two other candidates, once, far faster than the library's
  // confirmed figure there would be: the confirmed sizes decide.
  std::vector<ResultRow> rows = confirmed_two("mpi", "binomial", 128);
  rows.push_back(crossover(45, "binomial", 0.5));
  rows.push_back(crossover(45, "scatter_allgather", 0.4));
  CHECK(ranges(bcast_buckets(rows)[0]) == std::vector<Range>{{0, kMaxBytes, "mpi"}});
  const auto w = winners_of(rows);
  const auto at45 = std::ranges::find(w, int64_t{45}, &cct::tuner::Winner::bytes);
  REQUIRE(at45 != w.end());
  CHECK(at45->algorithm == "mpi");
  CHECK_FALSE(at45->margin.has_value());  // it decided nothing
}

TEST_CASE(
    "segmentation: between two confirmed picks, the boundary where the crossover's "
    "figures cross",
    "[tuner]") {
  // binomial confirmed ahead up to 32 B, scatter_allgather from 64 B.
  std::vector<ResultRow> rows = confirmed_two("binomial", "scatter_allgather", 32);
  SECTION("both timed at the crossover's sizes: binomial ahead at 45, not at 54") {
    add_crossovers(rows, {{45, 1.0, 1.1}, {54, 1.1, 1.0}});
    CHECK(ranges(bcast_buckets(rows)[0]) ==
          std::vector<Range>{{0, 48, "binomial"}, {48, kMaxBytes, "scatter_allgather"}});
  }
  SECTION("already level at 40 B") {
    add_crossovers(rows, {{40, 1.0, 1.0}, {45, 1.1, 1.0}});
    CHECK(ranges(bcast_buckets(rows)[0]) ==
          std::vector<Range>{{0, 40, "binomial"}, {40, kMaxBytes, "scatter_allgather"}});
  }
  SECTION("neither timed both: at the geometric middle of 32 and 64 (45.3 B)") {
    rows.push_back(crossover(40, "binomial", 1.0));
    rows.push_back(crossover(50, "scatter_allgather", 1.0));
    CHECK(ranges(bcast_buckets(rows)[0]) ==
          std::vector<Range>{{0, 48, "binomial"}, {48, kMaxBytes, "scatter_allgather"}});
  }
  SECTION("the library counted less the noise: level with it at 45 B, the library keeps it") {
    rows = confirmed_two("mpi", "binomial", 32);
    rows.push_back(crossover(45, "mpi", 1.0));
    rows.push_back(crossover(45, "binomial", 1.0));
    rows.push_back(crossover(54, "mpi", 1.1));
    rows.push_back(crossover(54, "binomial", 1.0));
    CHECK(ranges(bcast_buckets(rows)[0]) ==
          std::vector<Range>{{0, 48, "mpi"}, {48, kMaxBytes, "binomial"}});
  }
}
