// The selection profile: YAML round trip, every rejection with its
// file:line, the compiled lookup, CCT_FORCE, atomic save, profile search.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <sstream>

#include "cct/error.hpp"
#include "cct/profile.hpp"
#include "cct/units.hpp"
#include "support/harness.hpp"

namespace fs = std::filesystem;

// Counts allocations so that a test can show select() makes none. Replacing
// the global operators affects the whole test binary, harmlessly: they only
// forward to malloc/free, as the default ones do. Not inlined, so that g++
// does not mistake the free() for a mismatch with the standard new. Left out
// under AddressSanitizer, which replaces these operators itself.
#ifndef __SANITIZE_ADDRESS__
#define CCT_COUNT_ALLOCATIONS 1
static std::atomic<long> g_allocations{0};
__attribute__((noinline)) void* operator new(std::size_t n) {
  ++g_allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
__attribute__((noinline)) void operator delete(void* p) noexcept {
  std::free(p);
}
__attribute__((noinline)) void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
#endif

namespace {

// A fresh directory under $TMPDIR, removed with everything in it.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "cct_profile_XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

std::string read_file(const std::string& path) {
  std::ostringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A valid profile; the line numbers are what the rejection cases refer to.
const char* const kValidYaml =
    "schema: 1\n"                                 // 1
    "tool_version: 0.1.0\n"                       // 2
    "date: 2026-11-22T04:00:00Z\n"                // 3
    "machine:\n"                                  // 4
    "  fingerprint: 0123456789abcdef\n"           // 5
    "  summary: pack:1 core:2 pu:2\n"             // 6
    "  nodes: 1\n"                                // 7
    "  ranks_per_node: 2\n"                       // 8
    "  packages: 1\n"                             // 9
    "  numa_nodes: 1\n"                           // 10
    "  cores: 2\n"                                // 11
    "  pus: 2\n"                                  // 12
    "  caches: L2 1M x2\n"                        // 13
    "tuning:\n"                                   // 14
    "  reps: 20\n"                                // 15
    "  max_bytes: 4M\n"                           // 16
    "rules:\n"                                    // 17
    "  bcast:\n"                                  // 18
    "    shm:\n"                                  // 19
    "      - np: [2, 8]\n"                        // 20
    "        sizes:\n"                            // 21
    "          - range: [0, 4k]\n"                // 22
    "            algorithm: binomial\n"           // 23
    "            median_s: 1.5e-06\n"             // 24
    "          - range: [4k, max]\n"              // 25
    "            algorithm: knomial\n"            // 26
    "            params: {radix: 8}\n"            // 27
    "      - np: [9, max]\n"                      // 28
    "        sizes:\n"                            // 29
    "          - range: [0, max]\n"               // 30
    "            algorithm: scatter_allgather\n"  // 31
    "  allreduce:\n"                              // 32
    "    shm:\n"                                  // 33
    "      - np: [1, max]\n"                      // 34
    "        sizes:\n"                            // 35
    "          - range: [0, max]\n"               // 36
    "            algorithm: ring\n";              // 37

// yaml with line `line` (1-based) replaced by `text` ("" deletes it).
std::string with_line(const std::string& yaml, int line, const std::string& text) {
  std::istringstream in(yaml);
  std::string out;
  int n = 0;
  for (std::string l; std::getline(in, l);)
    if (++n != line)
      out += l + "\n";
    else if (!text.empty())
      out += text + "\n";
  return out;
}

// kValidYaml with line `line` replaced by `text`.
std::string with_line(int line, const std::string& text) {
  return with_line(kValidYaml, line, text);
}

// The first `n` lines of kValidYaml.
std::string first_lines(int n) {
  std::string text = kValidYaml;
  std::size_t end = 0;
  for (int i = 0; i < n; ++i) end = text.find('\n', end) + 1;
  return text.substr(0, end);
}

// The message load_profile() throws for `yaml`, checked to start with
// "<file>:<line>: ".
std::string rejection(const TempDir& dir, const std::string& yaml, int line,
                      const cct::Registry* registry = &cct::test::registry()) {
  const std::string path = dir.file("bad.yaml");
  write_file(path, yaml);
  try {
    cct::load_profile(path, registry);
  } catch (const cct::Error& e) {
    const std::string prefix = path + ":" + std::to_string(line) + ": ";
    INFO(e.what());
    CHECK(std::string(e.what()).rfind(prefix, 0) == 0);
    return std::string(e.what()).substr(std::min(prefix.size(), std::strlen(e.what())));
  }
  FAIL("load_profile accepted:\n" << yaml);
  return "";
}

cct::Profile sample_profile() {
  cct::Profile p;
  p.tool_version = "0.1.0";
  p.date = "2026-11-22T04:00:00Z";
  p.machine = {.fingerprint = "0123456789abcdef",
               .summary = "pack:1 numa:1 l3:1(32MiB) core:2 pu:2",
               .nodes = 1,
               .ranks_per_node = 2,
               .packages = 1,
               .numa_nodes = 1,
               .cores = 2,
               .pus = 2,
               .caches = "L2 1M x2, L3 32M"};
  p.tuning = {{"min_bytes", "0"}, {"max_bytes", "4M"}, {"reps", "20"},
              {"quick", "false"}, {"note", ""},        {"odd", "~: null"}};
  p.rules[CCT_BCAST]["shm"] = {
      {.np_lo = 2,
       .np_hi = 8,
       .sizes = {{.lo = 0, .hi = 4096, .algorithm = "binomial", .median_s = 1.5e-6},
                 {.lo = 4096,
                  .hi = 65536,
                  .algorithm = "knomial",
                  .params = {{"radix", 8}},
                  .median_s = 0.1 + 0.2},
                 {.lo = 65536,
                  .hi = cct::kMaxBytes,
                  .algorithm = "chain",
                  .params = {{"segment", 131072}}}}},
      {.np_lo = 9, .np_hi = cct::kMaxRanks, .sizes = {{.algorithm = "scatter_allgather"}}}};
  p.rules[CCT_ALLREDUCE]["shm"] = {{.sizes = {{.algorithm = "ring", .median_s = 0.0}}}};
  p.rules[CCT_ALLREDUCE]["mpi"] = {{.np_lo = 4, .np_hi = 4, .sizes = {{.algorithm = "ring"}}}};
  return p;
}

}  // namespace

TEST_CASE("profile: save then load gives the same profile", "[profile]") {
  TempDir dir;
  const cct::Profile p = sample_profile();
  const std::string path = dir.file("p.yaml");
  cct::save_profile(p, path);
  CHECK(cct::load_profile(path, &cct::test::registry()) == p);
  CHECK(cct::load_profile(path, nullptr) == p);
  const std::string text = read_file(path);
  CHECK(text.find("range: [4k, 64k]") != std::string::npos);
  CHECK(text.find("range: [64k, max]") != std::string::npos);
  CHECK(text.find("np: [9, max]") != std::string::npos);
  CHECK(files_in(dir.path) == std::vector<std::string>{"p.yaml"});
  // Empty text, empty settings and no rules survive too.
  CHECK(cct::profile_from_yaml(cct::profile_to_yaml(cct::Profile{}), "empty", nullptr) ==
        cct::Profile{});
}

TEST_CASE("profile: the documented example loads", "[profile]") {
  TempDir dir;
  write_file(dir.file("p.yaml"), kValidYaml);
  const cct::Profile p = cct::load_profile(dir.file("p.yaml"), &cct::test::registry());
  CHECK(p.machine.cores == 2);
  CHECK(p.tuning.at("max_bytes") == "4M");
  const auto& buckets = p.rules.at(CCT_BCAST).at("shm");
  REQUIRE(buckets.size() == 2);
  CHECK(buckets[0].sizes[1].params.at("radix") == 8);
  CHECK(buckets[0].sizes[0].median_s == 1.5e-6);
  CHECK(buckets[1].np_hi == cct::kMaxRanks);
}

TEST_CASE("profile: the example in profiles/README.md loads", "[profile]") {
  const std::string doc = read_file(CCT_TEST_SOURCE_DIR "/profiles/README.md");
  const std::size_t begin = doc.find("```yaml\n");
  REQUIRE(begin != std::string::npos);
  const std::size_t end = doc.find("```", begin + 8);
  TempDir dir;
  write_file(dir.file("p.yaml"), doc.substr(begin + 8, end - begin - 8));
  // kValidYaml (schema 1) with the example's fallbacks.
  cct::Profile want = cct::profile_from_yaml(kValidYaml, "valid", &cct::test::registry());
  want.rules[CCT_BCAST]["shm"][0].sizes[0].fallbacks = {
      {.algorithm = "mpi", .median_s = 1.7e-6},
      {.algorithm = "knomial", .params = {{"radix", 4}}, .median_s = 1.9e-6}};
  CHECK(cct::load_profile(dir.file("p.yaml"), &cct::test::registry()) == want);
}

TEST_CASE("profile: rejections name the file and line", "[profile]") {
  TempDir dir;
  struct Case {
    std::string yaml;
    int line;
    std::string message;
  };
  const Case cases[] = {
      {with_line(1, "schema: 4"), 1, "unsupported schema version 4 (this build reads 1 to 3)"},
      {with_line(1, "schema: one"), 1, "schema: expected an integer"},
      {with_line(1, ""), 1, "missing field 'schema'"},
      {with_line(11, "  cores: two"), 11, "machine.cores: expected an integer in 1.."},
      {with_line(12, ""), 5, "machine: missing field 'pus'"},
      {with_line(13, "  caches: [L2]"), 13, "machine.caches: expected text, got a collection"},
      {with_line(13, "  cache: L2"), 13, "machine: unknown field 'cache'"},
      {with_line(32, "  allreduse:"), 32, "rules: unknown collective 'allreduse'"},
      {with_line(23, "            algorithm: binomal"), 23,
       "unknown bcast algorithm 'binomal' (registered: binomial, knomial,"},
      {with_line(37, "            algorithm: binomial"), 37,
       "unknown allreduce algorithm 'binomial'"},
      {with_line(27, "            params: {radx: 8}"), 27,
       "bcast/knomial has no parameter 'radx' (parameters: radix)"},
      {with_line(27, "            params: {radix: 5}"), 27,
       "bcast/knomial parameter radix: 5 is not one of 2, 3, 4, 8"},
      {with_line(27, "            params: {radix: four}"), 27, "params.radix: expected an integer"},
      {with_line(24, "            median_s: fast"), 24, "median_s: expected seconds"},
      {with_line(24, "            medain_s: 1"), 24, "unknown field 'medain_s'"},
      {with_line(25, "          - range: [2k, max]"), 25,
       "sizes[1].range: overlaps the previous range, which ends at 4k"},
      {with_line(25, "          - range: [8k, max]"), 25,
       "leaves a gap [4k, 8k) after the previous range"},
      {with_line(22, "          - range: [1, 4k]"), 22, "the first range must start at 0, not 1"},
      {with_line(30, "          - range: [0, 1M]"), 30, "the last range must end at max, not 1M"},
      {with_line(30, "          - range: [0, lots]"), 30,
       "expected a size (0, 4k, 1M, max), got 'lots'"},
      {with_line(30, "          - range: [0]"), 30, "range: expected a list of 2, got 1 items"},
      {with_line(30, "          - range: [4k, 4k]"), 30, "empty range"},
      {with_line(28, "      - np: [8, max]"), 28, "np range overlaps an earlier bucket's [2, 8]"},
      {with_line(28, "      - np: [0, max]"), 28, "np: expected an integer in 1.."},
      {with_line(20, "      - np: [8, 2]"), 20,
       "np end (or max): expected an integer in 8..2147483647, got '2'"},
      {with_line(27, "            params: {radix: 8"), 28, "end of map flow not found"},
      {with_line(7, " nodes: 1"), 7, "end of map not found"},
      {with_line(2, "tool_version: 0.1.0\ntool_version: 0.2"), 3,
       "profile: field 'tool_version' given twice"},
      {with_line(32, "  bcast:"), 32, "rules: collective 'bcast' given twice"},
      {first_lines(32) + "    shm: {}\n", 33, "rules.allreduce.shm: expected a list of np buckets"},
      {first_lines(34) + "        sizes: []\n", 35,
       "rules.allreduce.shm[0].sizes: expected a non-empty list of size ranges"},
      {with_line(20, "      - np: [2, 8]\n        nodes: 0"), 21,
       "rules.bcast.shm[0].nodes: expected an integer in 1..2147483647, got '0'"},
      {with_line(20, "      - np: [2, 8]\n        nodes: two"), 21,
       "rules.bcast.shm[0].nodes: expected an integer"},
      {with_line(20, "      - np: [2, 8]\n        nodes: 9"), 21,
       "rules.bcast.shm[0].nodes: 9 nodes but at most 8 ranks: no communicator can match"},
      {with_line(20, "      - np: [2, 8]\n        nodes: 2\n        nodes: 2"), 22,
       "rules.bcast.shm[0]: field 'nodes' given twice"},
      // The same node count, given or by default: the ranges compete.
      {with_line(28, "      - np: [8, max]\n        nodes: 1"), 28,
       "np range overlaps an earlier bucket's [2, 8]"},
      {with_line(with_line(28, "      - np: [8, max]\n        nodes: 2"), 20,
                 "      - np: [2, 8]\n        nodes: 2"),
       29, "rules.bcast.shm[1]: np range overlaps an earlier bucket's [2, 8] of 2 nodes"},
  };
  for (const Case& c : cases) {
    INFO(c.yaml);
    CHECK_THAT(rejection(dir, c.yaml, c.line),
               Catch::Contains(c.message, Catch::CaseSensitive::Yes));
  }
}

TEST_CASE("profile: a problem inside one rule disables that rule alone, where asked", "[profile]") {
  // An unknown algorithm (line 23), a parameter value the algorithm refuses
  // (27) and a field of a newer version (37): three rules disabled, each
  // naming its file and line; the bucket of np 9.. keeps working.
  const std::string yaml =
      with_line(with_line(with_line(37, "            algorithm: ring\n            dtype: float"),
                          27, "            params: {radix: 5}"),
                23, "            algorithm: gone");
  CHECK_THROWS_WITH(cct::profile_from_yaml(yaml, "p.yaml", &cct::test::registry()),
                    Catch::Contains("p.yaml:23:"));
  const cct::Profile p = cct::profile_from_yaml(yaml, "p.yaml", &cct::test::registry(),
                                                cct::RuleProblems::kDisableRule);
  const auto& bcast = p.rules.at(CCT_BCAST).at("shm");
  CHECK_THAT(bcast[0].sizes[0].disabled,
             Catch::StartsWith("p.yaml:23: ") && Catch::Contains("unknown bcast algorithm 'gone'"));
  CHECK_THAT(bcast[0].sizes[1].disabled,
             Catch::StartsWith("p.yaml:27: ") && Catch::Contains("radix: 5 is not one of"));
  CHECK(bcast[1].sizes[0].disabled.empty());
  CHECK_THAT(p.rules.at(CCT_ALLREDUCE).at("shm")[0].sizes[0].disabled,
             Catch::StartsWith("p.yaml:38: ") && Catch::Contains("unknown field 'dtype'"));
  cct::Selector four(p, {}, cct::test::registry(), "shm", 4);
  CHECK(four.select(CCT_BCAST, 8) == nullptr);  // the built-in default
  CHECK(four.select(CCT_ALLREDUCE, 8) == nullptr);
  REQUIRE(four.warnings().size() == 3);
  CHECK_THAT(four.warnings()[0],
             Catch::StartsWith("p.yaml:23: ") &&
                 Catch::EndsWith("; rule bcast [0, 4k) left out, its sizes take the built-in "
                                 "default"));
  cct::Selector sixteen(p, {}, cct::test::registry(), "shm", 16);
  REQUIRE(sixteen.select(CCT_BCAST, 8) != nullptr);
  CHECK(sixteen.select(CCT_BCAST, 8)->algorithm ==
        &cct::test::algorithm(CCT_BCAST, "scatter_allgather"));
  // The range still decides coverage: a bad one fails the whole file.
  CHECK_THROWS_WITH(cct::profile_from_yaml(with_line(25, "          - range: [2k, max]"), "p.yaml",
                                           nullptr, cct::RuleProblems::kDisableRule),
                    Catch::Contains("p.yaml:25:"));
}

// Schema 2: each size rule may list fallbacks after its first choice.
// Schema 1 files (kValidYaml) still read; a fallback there is a field
// schema 1 does not have.
TEST_CASE(
    "profile: fallbacks read, round-trip, fail alone, and serve where the first choice "
    "cannot",
    "[profile]") {
  std::string yaml = with_line(1, "schema: 2");
  yaml = with_line(yaml, 24,
                   "            median_s: 1.5e-06\n"
                   "            fallbacks:\n"
                   "              - {algorithm: knomial, params: {radix: 4}, median_s: 2e-06}\n"
                   "              - {algorithm: chain}");
  const cct::Profile p = cct::profile_from_yaml(yaml, "p.yaml", &cct::test::registry());
  const cct::SizeRule& first = p.rules.at(CCT_BCAST).at("shm")[0].sizes[0];
  REQUIRE(first.fallbacks.size() == 2);
  CHECK(first.fallbacks[0] ==
        cct::Fallback{.algorithm = "knomial", .params = {{"radix", 4}}, .median_s = 2e-6});
  CHECK(first.fallbacks[1].algorithm == "chain");
  CHECK(cct::profile_from_yaml(cct::profile_to_yaml(p), "again", &cct::test::registry()) == p);
  CHECK(cct::profile_to_yaml(p).rfind("schema: 3\n", 0) == 0);
  const cct::Selector s(p, {}, cct::test::registry(), "shm", 2);
  const std::span<const cct::Selection> rule = s.candidates(CCT_BCAST, 100);
  REQUIRE(rule.size() == 3);
  CHECK(rule[0].algorithm == &cct::test::algorithm(CCT_BCAST, "binomial"));
  CHECK(
      (rule[1].algorithm == &cct::test::algorithm(CCT_BCAST, "knomial") && rule[1].fallback == 1));
  CHECK((rule[2].algorithm == &cct::test::algorithm(CCT_BCAST, "chain") && rule[2].fallback == 2));
  CHECK(s.candidates(CCT_BCAST, 8192).size() == 1);
  CHECK(s.size_matters(CCT_BCAST, 0));

  SECTION("schema 1 has no fallbacks") {
    CHECK_THROWS_WITH(
        cct::profile_from_yaml(with_line(yaml, 1, "schema: 1"), "p.yaml", &cct::test::registry()),
        Catch::Contains("p.yaml:25: ") && Catch::Contains("unknown field 'fallbacks'"));
  }
  SECTION("a bad fallback is left out alone; a bad first choice leaves its fallbacks serving") {
    std::string bad = with_line(yaml, 27, "              - {algorithm: gone}");
    bad = with_line(bad, 23, "            algorithm: binomal");
    CHECK_THROWS_WITH(cct::profile_from_yaml(bad, "p.yaml", &cct::test::registry()),
                      Catch::Contains("p.yaml:"));
    const cct::Profile q = cct::profile_from_yaml(bad, "p.yaml", &cct::test::registry(),
                                                  cct::RuleProblems::kDisableRule);
    const cct::SizeRule& r = q.rules.at(CCT_BCAST).at("shm")[0].sizes[0];
    CHECK_THAT(r.disabled, Catch::StartsWith("p.yaml:23: ") &&
                               Catch::Contains("unknown bcast algorithm 'binomal'"));
    REQUIRE(r.fallbacks.size() == 2);
    CHECK(r.fallbacks[0].disabled.empty());
    CHECK_THAT(r.fallbacks[1].disabled, Catch::StartsWith("p.yaml:27: ") &&
                                            Catch::Contains("unknown bcast algorithm 'gone'"));
    CHECK(cct::disabled_rules(q).size() == 2);
    const cct::Selector t(q, {}, cct::test::registry(), "shm", 2);
    const std::span<const cct::Selection> left = t.candidates(CCT_BCAST, 100);
    REQUIRE(left.size() == 1);
    CHECK((left[0].algorithm == &cct::test::algorithm(CCT_BCAST, "knomial") &&
           left[0].fallback == 1));
    CHECK(t.warnings().size() == 2);
  }
}

TEST_CASE("profile: rules the cost model predicted are read, written, chosen and said",
          "[profile]") {
  const std::string yaml =
      with_line(34, "      - np: [1, max]\n        predicted: {np: 64, from_np: 16, error: 0.12}");
  const cct::Profile p = cct::profile_from_yaml(yaml, "p.yaml", &cct::test::registry());
  const std::optional<cct::Prediction>& predicted =
      p.rules.at(CCT_ALLREDUCE).at("shm")[0].predicted;
  REQUIRE(predicted);
  CHECK(*predicted == cct::Prediction{.np = 64, .from_np = 16, .error = 0.12});
  CHECK(cct::profile_from_yaml(cct::profile_to_yaml(p), "again", &cct::test::registry()) == p);
  const cct::Selector at64(p, {}, cct::test::registry(), "shm", 64);
  CHECK(at64.warnings() ==
        std::vector<std::string>{"profile rules predicted by the cost model for 64 ranks from "
                                 "those measured at 16 ranks used for 64 ranks on shm (its median "
                                 "time error where it could be checked: 12%): tune with --np 64 "
                                 "for rules measured there"});
  REQUIRE(at64.select(CCT_ALLREDUCE, 100));
  CHECK(at64.select(CCT_ALLREDUCE, 100)->predicted);
  REQUIRE(at64.select(CCT_BCAST, 100));
  CHECK_FALSE(at64.select(CCT_BCAST, 100)->predicted);  // a measured bucket
  // Two collectives predicted alike: one note, with the range of errors.
  const cct::Profile both = cct::profile_from_yaml(
      with_line(yaml, 28,
                "      - np: [9, max]\n        predicted: {np: 64, from_np: 16, error: 0.3}"),
      "b.yaml", &cct::test::registry());
  const std::vector<std::string> said =
      cct::Selector(both, {}, cct::test::registry(), "shm", 64).warnings();
  REQUIRE(said.size() == 1);
  CHECK_THAT(said[0], Catch::Contains("(its median time error where it could be checked: 12-30% by "
                                      "collective)"));
  const cct::Profile unchecked = cct::profile_from_yaml(
      with_line(34, "      - np: [1, max]\n        predicted: {np: 8, from_np: 2}"), "u.yaml",
      nullptr);
  CHECK_THAT(cct::Selector(unchecked, {}, cct::test::registry(), "shm", 8).warnings().at(0),
             Catch::Contains("(its error unchecked: one communicator size measured)"));
  const auto rejects = [](const std::string& text, const std::string& why) {
    CHECK_THROWS_WITH(cct::profile_from_yaml(with_line(20, text), "p.yaml", nullptr),
                      Catch::Contains(why));
  };
  rejects("      - np: [2, 8]\n        predicted: {np: 9, from_np: 4}",
          "p.yaml:21: rules.bcast.shm[0].predicted.np (within np): expected an integer in 2..8");
  rejects("      - np: [2, 8]\n        predicted: {np: 8, from_np: 4, error: -1}",
          "rules.bcast.shm[0].predicted.error: expected a relative error (a number >= 0)");
  rejects("      - np: [2, 8]\n        predicted: {np: 8, from: 4}",
          "rules.bcast.shm[0].predicted: unknown field 'from'");
  rejects("      - np: [2, 8]\n        predicted: 8",
          "rules.bcast.shm[0].predicted: expected a map of np, from_np, from_nodes and error");
  rejects("      - np: [2, 8]\n        measured_np: 2\n        predicted: {np: 8, from_np: 2}",
          "rules.bcast.shm[0]: both measured_np and predicted: a bucket is one or the other");
  rejects("      - np: [2, 8]\n        predicted: {np: 8, from_np: 4, from_nodes: 2}",
          "rules.bcast.shm[0].predicted.from_nodes: 2 for a bucket of 1 node(s): a shape is "
          "predicted from a measured one of its own kind");
  rejects("      - np: [8, 8]\n        nodes: 4\n        predicted: {np: 8, from_np: 4}",
          "rules.bcast.shm[0].predicted.from_nodes: 1 for a bucket of 4 node(s)");
  rejects(
      "      - np: [8, 8]\n        nodes: 4\n        predicted: {np: 8, from_np: 4, "
      "from_nodes: 8}",
      "rules.bcast.shm[0].predicted.from_nodes (at most from_np): expected an integer in 1..4");
}

TEST_CASE("profile: rules predicted for a node count not measured are read, chosen and said",
          "[profile]") {
  // 8 nodes x 2 ranks, predicted from 2 nodes x 2.
  const std::string yaml =
      with_line(with_line(kValidYaml, 33, "    mpi:"), 34,
                "      - np: [16, max]\n        nodes: 8\n"
                "        predicted: {np: 16, from_np: 4, from_nodes: 2, error: 0.2}");
  const cct::Profile p = cct::profile_from_yaml(yaml, "p.yaml", &cct::test::registry());
  const cct::RankBucket& bucket = p.rules.at(CCT_ALLREDUCE).at("mpi")[0];
  REQUIRE(bucket.predicted);
  CHECK(*bucket.predicted ==
        cct::Prediction{.np = 16, .from_np = 4, .from_nodes = 2, .error = 0.2});
  CHECK_THAT(cct::profile_to_yaml(p),
             Catch::Contains("predicted: {np: 16, from_np: 4, from_nodes: 2, error: "));
  CHECK(cct::profile_from_yaml(cct::profile_to_yaml(p), "again", &cct::test::registry()) == p);
  // A job of 64 ranks on 32 nodes takes the 8-node rules, the largest
  // count tuned below its own, and says both.
  const cct::Selector s(p, {}, cct::test::registry(), "mpi", 64, 32);
  CHECK(s.warnings() ==
        std::vector<std::string>{
            "profile has no rules for 32 nodes: using its 8-node rules, the nearest node count it "
            "has",
            "profile rules predicted by the cost model for 8 nodes x 2 ranks from those measured "
            "at 2 nodes x 2 ranks used for 64 ranks on mpi (its median time error where it could "
            "be checked: 20%): tune on 8 nodes (--nodes 8) for rules measured there"});
  REQUIRE(s.select(CCT_ALLREDUCE, 100));
  CHECK(s.select(CCT_ALLREDUCE, 100)->predicted);
}

// A reduction's rules may be split by element type where its winners
// differ (a float sum against an int32 one): a typed bucket serves the
// types it names, the untyped one every other type.
TEST_CASE("profile: rules of a reduction's element types read, round-trip and chosen per call",
          "[profile]") {
  const std::string typed =
      "      - np: [2, max]\n"
      "        datatypes: [double, float]\n"
      "        sizes:\n"
      "          - range: [0, 1k]\n"
      "            algorithm: recursive_doubling\n"
      "          - range: [1k, max]\n"
      "            algorithm: rabenseifner\n";
  const std::string yaml = kValidYaml + typed;
  const cct::Profile p = cct::profile_from_yaml(yaml, "p.yaml", &cct::test::registry());
  const std::vector<cct::RankBucket>& allreduce = p.rules.at(CCT_ALLREDUCE).at("shm");
  REQUIRE(allreduce.size() == 2);
  CHECK(allreduce[0].datatypes.empty());
  CHECK(allreduce[1].datatypes == std::vector<cct_datatype>{CCT_FLOAT, CCT_DOUBLE});  // ascending
  CHECK_THAT(cct::profile_to_yaml(p), Catch::Contains("datatypes: [float, double]"));
  CHECK(cct::profile_from_yaml(cct::profile_to_yaml(p), "again", &cct::test::registry()) == p);
  CHECK(cct::datatypes_text(allreduce[1].datatypes) == "float, double");

  const cct::Selector s(p, {}, cct::test::registry(), "shm", 4);
  const auto name = [&](std::size_t bytes, cct_datatype t) {
    const cct::Selection* sel = s.select(CCT_ALLREDUCE, bytes, t);
    REQUIRE(sel != nullptr);
    return std::string(sel->algorithm->desc->name) +
           (sel->bucket == cct::Selection::Bucket::kElementType ? " typed" : "");
  };
  CHECK(name(100, CCT_INT32) == "ring");
  CHECK(name(100, CCT_UINT8) == "ring");
  CHECK(name(100, CCT_DOUBLE) == "recursive_doubling typed");
  CHECK(name(4096, CCT_FLOAT) == "rabenseifner typed");
  CHECK(name(100, CCT_DATATYPE_COUNT) == "ring");  // no type: the untyped rules
  // The untyped rules are one for every size; the typed ones are not.
  CHECK(s.size_matters(CCT_ALLREDUCE, 0));
  // Every size kept on the library in the untyped rules, but not for
  // doubles: the interposer may not hand every allreduce to the library
  // before it looks at the call's type.
  const std::string library = with_line(yaml, 37, "            algorithm: mpi");
  const cct::Profile kept = cct::profile_from_yaml(library, "k.yaml", &cct::test::registry());
  CHECK_FALSE(cct::Selector(kept, {}, cct::test::registry(), "shm", 4)
                  .library_everywhere(CCT_ALLREDUCE, 0));
  CHECK(cct::Selector(kept, {}, cct::test::registry(), "shm", 1)
            .library_everywhere(CCT_ALLREDUCE, 0));
  // Below np 2 only the untyped bucket matches.
  CHECK(cct::Selector(p, {}, cct::test::registry(), "shm", 1)
            .select(CCT_ALLREDUCE, 100, CCT_DOUBLE)
            ->algorithm->desc->name == std::string("ring"));
  CHECK_FALSE(cct::Selector(p, {}, cct::test::registry(), "shm", 1).size_matters(CCT_ALLREDUCE, 0));

  SECTION("CCT_FORCE comes first for every element type") {
    const auto force = cct::parse_force("allreduce:0-max:ring", &cct::test::registry());
    const cct::Selector forced(p, force, cct::test::registry(), "shm", 4);
    for (cct_datatype t : {CCT_INT32, CCT_FLOAT, CCT_DOUBLE})
      CHECK(forced.select(CCT_ALLREDUCE, 4096, t)->forced);
  }
  SECTION("refused: types on a collective that is no reduction, unknown, twice, overlapping") {
    const auto rejects = [](const std::string& text, const std::string& why) {
      CHECK_THROWS_WITH(cct::profile_from_yaml(text, "p.yaml", nullptr), Catch::Contains(why));
    };
    rejects(with_line(20, "      - np: [2, 8]\n        datatypes: [float]"),
            "p.yaml:21: rules.bcast.shm[0].datatypes: only a reduction's rules depend on the "
            "element type, and bcast is not one");
    rejects(with_line(yaml, 39, "        datatypes: [float, half]"),
            "p.yaml:39: rules.allreduce.shm[1].datatypes: unknown element type 'half'");
    rejects(with_line(yaml, 39, "        datatypes: [float, float]"),
            "rules.allreduce.shm[1].datatypes: 'float' given twice");
    rejects(with_line(yaml, 39, "        datatypes: []"),
            "rules.allreduce.shm[1].datatypes: expected a non-empty list of element types");
    rejects(yaml +
                "      - np: [8, 9]\n        datatypes: [int32, float]\n        sizes:\n"
                "          - range: [0, max]\n            algorithm: ring\n",
            "rules.allreduce.shm[2]: np range overlaps an earlier bucket's [2, max] for one of its "
            "datatypes");
    // Other types over the same ranks compete with neither.
    CHECK_NOTHROW(cct::profile_from_yaml(
        yaml + "      - np: [8, 9]\n        datatypes: [int32]\n        sizes:\n"
               "          - range: [0, max]\n            algorithm: ring\n",
        "p.yaml", nullptr));
  }
}

// A rooted collective's rules may be split at root 0 where its winners
// differ at another root: a bucket of `roots: nonzero` serves the calls
// whose root is not 0, the bucket of every call root 0.
TEST_CASE("profile: rules of roots other than 0 read, round-trip and chosen per call",
          "[profile]") {
  const std::string rooted =
      "            algorithm: scatter_allgather\n"
      "      - np: [2, 8]\n"
      "        roots: nonzero\n"
      "        sizes:\n"
      "          - range: [0, 1k]\n"
      "            algorithm: knomial\n"
      "            params: {radix: 2}\n"
      "          - range: [1k, max]\n"
      "            algorithm: scatter_allgather\n";
  const std::string yaml = with_line(31, rooted);  // after bcast's buckets, lines 32-39
  const cct::Profile p = cct::profile_from_yaml(yaml, "p.yaml", &cct::test::registry());
  const std::vector<cct::RankBucket>& bcast = p.rules.at(CCT_BCAST).at("shm");
  REQUIRE(bcast.size() == 3);
  CHECK_FALSE(bcast[0].nonzero_roots);
  CHECK(bcast[2].nonzero_roots);
  CHECK(cct::served_calls_text(bcast[2]) == "roots other than 0");
  CHECK(cct::served_calls_text(bcast[0]).empty());
  CHECK_THAT(cct::profile_to_yaml(p), Catch::Contains("roots: nonzero"));
  CHECK(cct::profile_from_yaml(cct::profile_to_yaml(p), "again", &cct::test::registry()) == p);

  const cct::Selector s(p, {}, cct::test::registry(), "shm", 4);
  const auto name = [&](std::size_t bytes, int root) {
    const cct::Selection* sel = s.select(CCT_BCAST, bytes, CCT_UINT8, root);
    REQUIRE(sel != nullptr);
    return cct::format_choice(*sel->algorithm->desc, sel->params) +
           (sel->bucket == cct::Selection::Bucket::kNonzeroRoots ? " (roots)" : "");
  };
  CHECK(name(100, 0) == "binomial");
  CHECK(name(100, 3) == "knomial(radix=2) (roots)");
  CHECK(name(100, 1) == "knomial(radix=2) (roots)");
  CHECK(name(8192, 0) == "knomial(radix=8)");
  CHECK(name(8192, 2) == "scatter_allgather (roots)");
  CHECK(s.size_matters(CCT_BCAST, 0));
  CHECK(s.size_matters(CCT_BCAST, 3));
  // Above np 8 only the bucket of every call matches, at any root.
  const cct::Selector at9(p, {}, cct::test::registry(), "shm", 9);
  CHECK(at9.select(CCT_BCAST, 100, CCT_UINT8, 5)->algorithm->desc->name ==
        std::string("scatter_allgather"));
  CHECK_FALSE(at9.size_matters(CCT_BCAST, 0));
  CHECK_FALSE(at9.size_matters(CCT_BCAST, 5));
  // Every size kept on the library for root 0 but not for the others:
  // the interposer hands every root-0 bcast to the library unseen, and no
  // other; the other roots' rules choose by size, root 0's do not.
  const std::string library = with_line(with_line(with_line(yaml, 23, "            algorithm: mpi"),
                                                  26, "            algorithm: mpi"),
                                        27, "");
  const cct::Profile kept = cct::profile_from_yaml(library, "k.yaml", &cct::test::registry());
  CHECK(cct::Selector(kept, {}, cct::test::registry(), "shm", 4)
            .select(CCT_BCAST, 1 << 20)
            ->algorithm->desc->name == std::string("mpi"));
  const cct::Selector kept_at_root0(kept, {}, cct::test::registry(), "shm", 4);
  CHECK(kept_at_root0.library_everywhere(CCT_BCAST, 0));
  CHECK_FALSE(kept_at_root0.library_everywhere(CCT_BCAST, 1));
  CHECK_FALSE(kept_at_root0.size_matters(CCT_BCAST, 0));
  CHECK(kept_at_root0.size_matters(CCT_BCAST, 1));

  SECTION("CCT_FORCE comes first at every root") {
    const auto force = cct::parse_force("bcast:0-max:binomial", &cct::test::registry());
    const cct::Selector forced(p, force, cct::test::registry(), "shm", 4);
    for (int root : {0, 1, 3}) CHECK(forced.select(CCT_BCAST, 4096, CCT_UINT8, root)->forced);
  }
  SECTION("a rooted reduction's root comes before its type") {
    const std::string both =
        kValidYaml + std::string(
                         "  reduce:\n    shm:\n"
                         "      - np: [1, max]\n        sizes:\n"
                         "          - range: [0, max]\n            algorithm: binomial\n"
                         "      - np: [1, max]\n        datatypes: [double]\n"
                         "        sizes:\n          - range: [0, max]\n"
                         "            algorithm: chain\n"
                         "      - np: [1, max]\n        roots: nonzero\n"
                         "        sizes:\n          - range: [0, max]\n"
                         "            algorithm: rabenseifner\n");
    const cct::Profile r = cct::profile_from_yaml(both, "r.yaml", &cct::test::registry());
    const cct::Selector at4(r, {}, cct::test::registry(), "shm", 4);
    const auto pick = [&](cct_datatype t, int root) {
      return std::string(at4.select(CCT_REDUCE, 4096, t, root)->algorithm->desc->name);
    };
    CHECK(pick(CCT_INT32, 0) == "binomial");
    CHECK(pick(CCT_DOUBLE, 0) == "chain");
    CHECK(pick(CCT_DOUBLE, 2) == "rabenseifner");
    CHECK(pick(CCT_INT32, 3) == "rabenseifner");
  }
  SECTION("refused: roots on an unrooted collective, another class, with types, overlapping") {
    const auto rejects = [](const std::string& text, const std::string& why) {
      CHECK_THROWS_WITH(cct::profile_from_yaml(text, "p.yaml", nullptr), Catch::Contains(why));
    };
    rejects(with_line(34, "      - np: [1, max]\n        roots: nonzero"),
            "p.yaml:35: rules.allreduce.shm[0].roots: only a rooted collective's rules depend on "
            "the root, and allreduce has none");
    rejects(with_line(yaml, 33, "        roots: last"),
            "p.yaml:33: rules.bcast.shm[2].roots: expected 'nonzero' (the rules of the calls "
            "whose root is not 0), got 'last'");
    rejects(with_line(yaml, 33, "        roots: [nonzero]"),
            "rules.bcast.shm[2].roots: expected 'nonzero' (the rules of the calls whose root is "
            "not 0), got a collection");
    rejects(kValidYaml + std::string("  reduce:\n    shm:\n      - np: [1, max]\n"
                                     "        roots: nonzero\n        datatypes: [float]\n"
                                     "        sizes:\n          - range: [0, max]\n"
                                     "            algorithm: binomial\n"),
            "p.yaml:41: rules.reduce.shm[0]: both datatypes and roots: a bucket serves the calls "
            "of element types or those of roots other than 0, not both");
    rejects(with_line(yaml, 39,
                      "            algorithm: scatter_allgather\n"
                      "      - np: [8, 9]\n        roots: nonzero\n        sizes:\n"
                      "          - range: [0, max]\n            algorithm: binomial"),
            "rules.bcast.shm[3]: np range overlaps an earlier bucket's [2, 8] for roots other "
            "than 0");
  }
}

TEST_CASE("profile: rules used beyond the communicator size they were measured at are said",
          "[profile]") {
  const std::string yaml = with_line(34, "      - np: [1, max]\n        measured_np: 2");
  const cct::Profile p = cct::profile_from_yaml(yaml, "p.yaml", &cct::test::registry());
  REQUIRE(p.rules.at(CCT_ALLREDUCE).at("shm")[0].measured_np == 2);
  CHECK(cct::profile_from_yaml(cct::profile_to_yaml(p), "again", &cct::test::registry()) == p);
  CHECK(cct::Selector(p, {}, cct::test::registry(), "shm", 2).warnings().empty());
  CHECK(cct::Selector(p, {}, cct::test::registry(), "shm", 4).warnings() ==
        std::vector<std::string>{"profile rules measured at 2 ranks used for 4 ranks on shm: tune "
                                 "with --np 4 for rules measured there"});
  CHECK_THROWS_WITH(
      cct::profile_from_yaml(with_line(20, "      - np: [2, 8]\n        measured_np: 9"), "p.yaml",
                             nullptr),
      Catch::Contains("p.yaml:21: rules.bcast.shm[0].measured_np (within np): expected an "
                      "integer in 2..8, got '9'"));
}

TEST_CASE("profile: a file that is no profile is named as such, in one short line", "[profile]") {
  std::string csv = "collective,transport,nodes,np,bytes,algorithm,params,median_s\n";
  for (int i = 0; i < 2000; ++i) csv += "bcast,shm,1,2,64,binomial,,1e-06\n";
  try {
    cct::profile_from_yaml(csv, "r.csv", nullptr);
    FAIL("a results file was read as a profile");
  } catch (const cct::Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("r.csv:1: this is a ccautotune results file (CSV), not a "
                                         "profile"));
  }
  try {
    cct::profile_from_yaml(std::string(100000, 'x'), "x.yaml", nullptr);
    FAIL("a scalar was read as a profile");
  } catch (const cct::Error& e) {
    CHECK(std::string(e.what()).size() < 200);
    CHECK_THAT(e.what(), Catch::Contains("...' (100000 characters)"));
  }
}

TEST_CASE("profile: mangled files are rejected, never crash, and round-trip when accepted",
          "[profile]") {
  const std::string valid = kValidYaml;
  const std::string alphabet = " :-[]{},\n#&*!|>'\"0ak\t?";
  uint64_t state = 12345;
  auto next = [&](std::size_t bound) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::size_t>((state >> 33) % bound);
  };
  int accepted = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string text = valid;
    for (int edits = 1 + next(3); edits > 0; --edits) {
      const std::size_t at = next(text.size());
      if (next(2))
        text.erase(at, 1 + next(4));
      else
        text.insert(at, 1, alphabet[next(alphabet.size())]);
    }
    INFO(text);
    try {
      const cct::Profile p = cct::profile_from_yaml(text, "m.yaml", &cct::test::registry());
      ++accepted;
      CHECK(cct::profile_from_yaml(cct::profile_to_yaml(p), "again", nullptr) == p);
    } catch (const cct::Error& e) {
      CHECK_THAT(e.what(), Catch::StartsWith("m.yaml:"));
    }
  }
  CHECK(accepted > 0);
}

TEST_CASE("profile: buckets of several node counts round-trip", "[profile]") {
  cct::Profile p = sample_profile();
  p.machine.nodes = 4;
  p.machine.ranks_per_node = 8;
  auto& buckets = p.rules[CCT_BCAST]["shm"];
  buckets.push_back({.np_lo = 2, .np_hi = 15, .nodes = 2, .sizes = {{.algorithm = "knomial"}}});
  buckets.push_back({.np_lo = 16, .nodes = 2, .sizes = {{.algorithm = "chain"}}});
  buckets.push_back({.np_lo = 4, .nodes = 4, .sizes = {{.algorithm = "binomial"}}});
  TempDir dir;
  cct::save_profile(p, dir.file("p.yaml"));
  const cct::Profile back = cct::load_profile(dir.file("p.yaml"), &cct::test::registry());
  CHECK(back == p);
  CHECK((back.machine.nodes == 4 && back.machine.ranks_per_node == 8));
  CHECK(back.rules.at(CCT_BCAST).at("shm")[4].nodes == 4);
  const std::string text = read_file(dir.file("p.yaml"));
  CHECK(text.find("      - np: [16, max]\n        nodes: 2\n        sizes:") != std::string::npos);
}

TEST_CASE("profile: a bucket without nodes is for one node, and is written so", "[profile]") {
  const cct::Profile p = cct::profile_from_yaml(kValidYaml, "valid", &cct::test::registry());
  for (const auto& [collective, transports] : p.rules)
    for (const auto& [transport, buckets] : transports)
      for (const cct::RankBucket& b : buckets) CHECK(b.nodes == 1);
  // Single-node profiles are written as before: no nodes key in a bucket.
  const std::string text = cct::profile_to_yaml(sample_profile());
  CHECK(text.find("        nodes:") == std::string::npos);
  CHECK(text.find("\n  nodes: 1\n") != std::string::npos);  // the machine's
}

TEST_CASE("profile: overlapping np ranges of different node counts are accepted", "[profile]") {
  const cct::Profile p = cct::profile_from_yaml(
      with_line(28, "      - np: [2, max]\n        nodes: 2"), "valid", &cct::test::registry());
  const auto& buckets = p.rules.at(CCT_BCAST).at("shm");
  REQUIRE(buckets.size() == 2);
  CHECK((buckets[0].nodes == 1 && buckets[1].nodes == 2 && buckets[1].np_lo == 2));
}

TEST_CASE("profile: a bucket with more nodes than np_hi would not save", "[profile]") {
  cct::Profile p;
  p.rules[CCT_BCAST]["shm"] = {
      {.np_lo = 2, .np_hi = 3, .nodes = 4, .sizes = {{.algorithm = "binomial"}}}};
  TempDir dir;
  CHECK_THROWS_WITH(cct::save_profile(p, dir.file("p.yaml")),
                    Catch::Contains("no communicator can match"));
  p.rules[CCT_BCAST]["shm"][0].nodes = 0;
  CHECK_THROWS_WITH(cct::save_profile(p, dir.file("p.yaml")),
                    Catch::Contains("nodes: expected an integer in 1.."));
}

TEST_CASE("profile: without a registry, names are not checked", "[profile]") {
  TempDir dir;
  write_file(dir.file("p.yaml"), with_line(27, "            params: {radx: 8}"));
  CHECK(cct::load_profile(dir.file("p.yaml"), nullptr).rules.at(CCT_BCAST).at("shm").size() == 2);
  CHECK_THAT(rejection(dir, with_line(24, "            median_s: -1"), 24, nullptr),
             Catch::Contains("median_s: expected seconds (a number >= 0), got '-1'"));
}

TEST_CASE("profile: unreadable and empty files", "[profile]") {
  TempDir dir;
  CHECK_THROWS_WITH(cct::load_profile(dir.file("none.yaml"), nullptr),
                    dir.file("none.yaml") + ": cannot open the profile");
  CHECK_THAT(rejection(dir, "", 1), Catch::Contains("expected a profile (a mapping)"));
  CHECK_THAT(rejection(dir, "- 1\n- 2\n", 1), Catch::Contains("expected a profile (a mapping)"));
}

TEST_CASE("profile: parameter ranges", "[profile]") {
  cct_param_desc add{.name = "threads",
                     .type = CCT_PARAM_INT,
                     .default_value = 4,
                     .lo = 2,
                     .hi = 10,
                     .step = 2,
                     .step_kind = CCT_STEP_ADD};
  CHECK(cct::param_value_problem(add, 2) == "");
  CHECK(cct::param_value_problem(add, 10) == "");
  CHECK(cct::param_value_problem(add, 12) == "12 is outside 2..10");
  CHECK(cct::param_value_problem(add, 5) == "5 is not on the range's steps (plus 2 from 2)");
  cct_param_desc mul{.name = "segment",
                     .type = CCT_PARAM_BYTES,
                     .default_value = 8192,
                     .lo = 4096,
                     .hi = 1 << 20,
                     .step = 4,
                     .step_kind = CCT_STEP_MUL};
  CHECK(cct::param_value_problem(mul, 4096) == "");
  CHECK(cct::param_value_problem(mul, 1 << 20) == "");
  CHECK(cct::param_value_problem(mul, 8192) == "8k is not on the range's steps (times 4 from 4k)");
  CHECK(cct::param_value_problem(mul, 2048) == "2k is outside 4k..1M");
}

TEST_CASE("profile: lookup boundaries", "[profile]") {
  const cct::Registry& reg = cct::test::registry();
  const cct::Profile p = sample_profile();
  cct::Selector s(p, {}, reg, "shm", 4);
  CHECK(s.warnings().empty());
  auto name = [&](cct_collective c, std::size_t bytes) -> std::string {
    const cct::Selection* sel = s.select(c, bytes);
    return sel ? sel->algorithm->desc->name : "none";
  };
  CHECK(name(CCT_BCAST, 0) == "binomial");
  CHECK(name(CCT_BCAST, 4095) == "binomial");
  CHECK(name(CCT_BCAST, 4096) == "knomial");  // [lo, hi): the boundary belongs above
  CHECK(name(CCT_BCAST, 65535) == "knomial");
  CHECK(name(CCT_BCAST, 65536) == "chain");
  CHECK(name(CCT_BCAST, SIZE_MAX) == "chain");
  CHECK(name(CCT_ALLREDUCE, 0) == "ring");
  CHECK(name(CCT_GATHER, 0) == "none");  // no rules for gather
  CHECK(s.select(CCT_BCAST, 4096)->params == std::vector<int64_t>{8});
  CHECK(s.select(CCT_BCAST, 65536)->params == std::vector<int64_t>{131072});
  CHECK_FALSE(s.select(CCT_BCAST, 0)->forced);

  // np outside every bucket, another transport, a bucket of one size.
  CHECK(cct::Selector(p, {}, reg, "shm", 1).select(CCT_BCAST, 0) == nullptr);
  CHECK(cct::Selector(p, {}, reg, "shm", 1).select(CCT_ALLREDUCE, 0) != nullptr);
  CHECK(cct::Selector(p, {}, reg, "tcp", 4).select(CCT_BCAST, 0) == nullptr);
  CHECK(cct::Selector(p, {}, reg, "mpi", 4).select(CCT_ALLREDUCE, 0) != nullptr);
  CHECK(cct::Selector(p, {}, reg, "mpi", 5).select(CCT_ALLREDUCE, 0) == nullptr);
  CHECK(cct::Selector(p, {}, reg, "shm", 1000).select(CCT_BCAST, 0)->algorithm->desc->name ==
        std::string("scatter_allgather"));
  CHECK(s.select(static_cast<cct_collective>(CCT_COLLECTIVE_COUNT), 0) == nullptr);
}

namespace {

// bcast on shm tuned on 1, 2 and 4 nodes (one algorithm per node count),
// allreduce on one node only.
cct::Profile shapes_profile() {
  cct::Profile p;
  auto bucket = [](int nodes, const char* algorithm) {
    return cct::RankBucket{.np_lo = nodes, .nodes = nodes, .sizes = {{.algorithm = algorithm}}};
  };
  p.rules[CCT_BCAST]["shm"] = {bucket(1, "binomial"), bucket(2, "knomial"), bucket(4, "chain")};
  p.rules[CCT_ALLREDUCE]["shm"] = {bucket(1, "ring")};
  return p;
}

std::string selected_name(const cct::Selector& s, cct_collective c) {
  const cct::Selection* sel = s.select(c, 0);
  return sel ? sel->algorithm->desc->name : "none";
}

}  // namespace

TEST_CASE("profile: lookup uses the buckets of the communicator's node count", "[profile]") {
  const cct::Registry& reg = cct::test::registry();
  const cct::Profile p = shapes_profile();
  for (auto [nodes, bcast] : {std::pair{1, "binomial"}, {2, "knomial"}, {4, "chain"}}) {
    const cct::Selector s(p, {}, reg, "shm", 8, nodes);
    INFO(nodes << " nodes");
    CHECK(s.warnings().empty());
    CHECK(selected_name(s, CCT_BCAST) == bcast);
    // The 1-node allreduce rules are not 2-node rules.
    CHECK(selected_name(s, CCT_ALLREDUCE) == (nodes == 1 ? "ring" : "none"));
  }
  // Without nodes: one node.
  CHECK(selected_name(cct::Selector(p, {}, reg, "shm", 8), CCT_BCAST) == "binomial");
}

TEST_CASE("profile: an untuned node count uses the closest tuned one, with a warning",
          "[profile]") {
  const cct::Registry& reg = cct::test::registry();
  cct::Profile p = shapes_profile();
  // Below: the largest tuned count under it.
  const cct::Selector three(p, {}, reg, "shm", 12, 3);
  CHECK(selected_name(three, CCT_BCAST) == "knomial");
  CHECK(three.warnings() ==
        std::vector<std::string>{"profile has no rules for 3 nodes: using its 2-node rules, the "
                                 "nearest node count it has"});
  const cct::Selector sixteen(p, {}, reg, "shm", 64, 16);
  CHECK(selected_name(sixteen, CCT_BCAST) == "chain");
  CHECK(sixteen.warnings() ==
        std::vector<std::string>{"profile has no rules for 16 nodes: using its 4-node rules, the "
                                 "nearest node count it has"});
  // None below: the smallest above.
  p.rules[CCT_BCAST]["shm"].erase(p.rules[CCT_BCAST]["shm"].begin());
  p.rules.erase(CCT_ALLREDUCE);
  const cct::Selector one(p, {}, reg, "shm", 8, 1);
  CHECK(selected_name(one, CCT_BCAST) == "knomial");
  CHECK(one.warnings() == std::vector<std::string>{"profile has no rules for 1 node: using its "
                                                   "2-node rules, the nearest node count it has"});
  // A transport the profile has no rules for: nothing to warn about.
  CHECK(cct::Selector(p, {}, reg, "mpi", 8, 3).warnings().empty());
}

TEST_CASE("profile: CCT_FORCE applies to every node count", "[profile]") {
  const cct::Registry& reg = cct::test::registry();
  const auto force = cct::parse_force("bcast:0-max:scatter_allgather", &reg);
  for (int nodes : {1, 2, 3, 16}) {
    const cct::Selector s(shapes_profile(), force, reg, "shm", 16, nodes);
    INFO(nodes << " nodes");
    CHECK(selected_name(s, CCT_BCAST) == "scatter_allgather");
    CHECK(s.select(CCT_BCAST, 0)->forced);
  }
}

#ifdef CCT_COUNT_ALLOCATIONS
TEST_CASE("profile: lookup does not allocate", "[profile]") {
  cct::Selector s(sample_profile(), cct::parse_force("bcast:0-1k:knomial", nullptr),
                  cct::test::registry(), "shm", 4);
  const long before = g_allocations.load();
  std::size_t found = 0;
  for (std::size_t bytes : {0ul, 1000ul, 4096ul, 1ul << 20, SIZE_MAX})
    found += s.select(CCT_BCAST, bytes) != nullptr;
  CHECK(g_allocations.load() == before);
  CHECK(found == 5);
}
#endif

TEST_CASE("profile: defaults fill unnamed parameters", "[profile]") {
  cct::Profile p;
  p.rules[CCT_BCAST]["shm"] = {{.sizes = {{.algorithm = "knomial"}}}};
  cct::Selector s(p, {}, cct::test::registry(), "shm", 4);
  const auto& knomial = cct::test::algorithm(CCT_BCAST, "knomial");
  CHECK(s.select(CCT_BCAST, 0)->algorithm == &knomial);
  CHECK(s.select(CCT_BCAST, 0)->params == knomial.default_params());
}

TEST_CASE("profile: rules the registry rejects fall back, with a warning", "[profile]") {
  cct::Profile p;
  p.rules[CCT_BCAST]["shm"] = {
      {.sizes = {{.hi = 1024, .algorithm = "gone"},
                 {.lo = 1024, .algorithm = "knomial", .params = {{"radix", 7}}}}}};
  cct::Selector s(p, {}, cct::test::registry(), "shm", 4);
  CHECK(s.select(CCT_BCAST, 0) == nullptr);
  CHECK(s.select(CCT_BCAST, 1024) == nullptr);
  REQUIRE(s.warnings().size() == 2);
  CHECK_THAT(s.warnings()[0], Catch::StartsWith("profile rule bcast [0, 1k) left out: unknown "
                                                "bcast algorithm 'gone'"));
  CHECK_THAT(s.warnings()[1], Catch::Contains("radix: 7 is not one of 2, 3, 4, 8"));
  p.rules[CCT_BCAST]["shm"][0].sizes = {{.lo = 8, .hi = 8, .algorithm = "binomial"}};
  cct::Selector empty(p, {}, cct::test::registry(), "shm", 4);
  CHECK(empty.select(CCT_BCAST, 8) == nullptr);
  CHECK(empty.warnings() ==
        std::vector<std::string>{"profile rule bcast [8, 8) left out: empty range"});
}

TEST_CASE("profile: CCT_FORCE parsing", "[profile]") {
  const cct::Registry* reg = &cct::test::registry();
  auto rules = cct::parse_force("bcast:0-4k:binomial;bcast:4k-max:scatter_allgather", reg);
  REQUIRE(rules.size() == 2);
  CHECK(rules[0] == cct::ForceRule{CCT_BCAST, {.lo = 0, .hi = 4096, .algorithm = "binomial"}});
  CHECK(rules[1] ==
        cct::ForceRule{CCT_BCAST,
                       {.lo = 4096, .hi = cct::kMaxBytes, .algorithm = "scatter_allgather"}});
  rules = cct::parse_force("allreduce:0-max:ring", reg);
  REQUIRE(rules.size() == 1);
  CHECK(rules[0].collective == CCT_ALLREDUCE);
  rules =
      cct::parse_force(" bcast:0-max:knomial(radix=8) ; bcast:1M-max:chain(segment=128k);", reg);
  REQUIRE(rules.size() == 2);
  CHECK(rules[0].rule.params == std::map<std::string, int64_t>{{"radix", 8}});
  CHECK(rules[1].rule.lo == 1 << 20);
  CHECK(rules[1].rule.params.at("segment") == 131072);
  CHECK(cct::parse_force("", reg).empty());
  CHECK(cct::parse_force("bcast:0-max:anything(x=1)", nullptr).size() == 1);
}

TEST_CASE("profile: CCT_FORCE rejections name the rule and position", "[profile]") {
  const cct::Registry* reg = &cct::test::registry();
  const std::pair<std::string, std::string> cases[] = {
      {"bcast:0-4k",
       "CCT_FORCE rule 1 'bcast:0-4k' at character 11: expected ':' after the "
       "size range, got the end of the rule"},
      {"bcast:0-4k:binomial;bcst:0-max:ring",
       "CCT_FORCE rule 2 'bcst:0-max:ring' at character 21: unknown collective 'bcst'"},
      {"allreduce:4k-1k:ring",
       "CCT_FORCE rule 1 'allreduce:4k-1k:ring' at character 11: empty range"},
      {"bcast:x-max:binomial", "at character 7: expected the range's start (0, 4k, 1M), got 'x'"},
      {"bcast:max-max:binomial", "at character 7: expected the range's start"},
      {"bcast:0:binomial", "at character 8: expected '-' between the range's start and end"},
      {"bcast:0-huge:binomial", "at character 9: expected the range's end (4k, 1M, max)"},
      {"bcast:0-max:nope", "at character 13: unknown bcast algorithm 'nope' (registered:"},
      {"bcast:0-max:", "at character 13: expected an algorithm name"},
      {"bcast:0-max:knomial(radix=5)",
       "at character 21: bcast/knomial parameter radix: 5 is not one of 2, 3, 4, 8"},
      {"bcast:0-max:knomial(radx=8)",
       "at character 21: bcast/knomial has no parameter 'radx' (parameters: radix)"},
      {"bcast:0-max:knomial(radix=8", "at character 28: expected ')' to close the parameter list"},
      {"bcast:0-max:knomial(radix)", "at character 26: expected '=' after the parameter name"},
      {"bcast:0-max:knomial(radix=eight)", "at character 27: expected an integer or a size"},
      {"bcast:0-max:knomial(radix=2,radix=4)", "at character 29: parameter 'radix' given twice"},
      {"bcast:0-max:knomial(radix=2)x", "at character 29: unexpected 'x'"},
      {"bcast:0-max:Binomial", "at character 13: expected an algorithm name"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    CHECK_THROWS_WITH(cct::parse_force(text, reg), Catch::Contains(message));
  }
}

TEST_CASE("profile: a bad CCT_FORCE rule is skipped alone, where asked", "[profile]") {
  std::vector<std::string> skipped;
  const auto rules = cct::parse_force("bcast:0-max:nope;allreduce:0-max:ring;gather:0:linear",
                                      &cct::test::registry(), &skipped);
  REQUIRE(rules.size() == 1);
  CHECK(rules[0].collective == CCT_ALLREDUCE);
  REQUIRE(skipped.size() == 2);
  CHECK_THAT(skipped[0], Catch::StartsWith("CCT_FORCE rule 1 'bcast:0-max:nope' at character 13: "
                                           "unknown bcast algorithm 'nope'"));
  CHECK_THAT(skipped[1], Catch::StartsWith("CCT_FORCE rule 3 'gather:0:linear'"));
}

TEST_CASE("profile: CCT_FORCE takes precedence over the profile", "[profile]") {
  const cct::Registry& reg = cct::test::registry();
  const auto force = cct::parse_force("bcast:0-4k:knomial(radix=2);bcast:0-max:binomial", &reg);
  cct::Selector s(sample_profile(), force, reg, "shm", 4);
  const cct::Selection* small = s.select(CCT_BCAST, 100);
  REQUIRE(small != nullptr);
  CHECK(small->forced);
  CHECK(small->algorithm->desc->name == std::string("knomial"));
  CHECK(small->params == std::vector<int64_t>{2});
  // The first force rule that matches wins over later ones and the profile.
  CHECK(s.select(CCT_BCAST, 1 << 20)->algorithm->desc->name == std::string("binomial"));
  CHECK(s.select(CCT_ALLREDUCE, 0)->forced == false);
  // Any transport, any communicator size, even where the profile has none.
  for (const char* transport : {"shm", "mpi", "rapidio_sim"})
    for (int np : {1, 4, 1000})
      CHECK(cct::Selector(cct::Profile{}, force, reg, transport, np).select(CCT_BCAST, 4096) !=
            nullptr);
}

TEST_CASE("profile: save is atomic", "[profile]") {
  TempDir dir;
  const std::string path = dir.file("p.yaml");
  write_file(path, "old contents\n");

  SECTION("a successful save replaces the file and leaves no temporary") {
    cct::save_profile(sample_profile(), path);
    CHECK(cct::load_profile(path, nullptr) == sample_profile());
    CHECK(files_in(dir.path) == std::vector<std::string>{"p.yaml"});
    CHECK((fs::status(path).permissions() & fs::perms::others_read) != fs::perms::none);
  }
  SECTION("a profile that would not load is refused") {
    cct::Profile p = sample_profile();
    p.rules[CCT_BCAST]["shm"][0].sizes[1].lo = 8192;
    CHECK_THROWS_WITH(
        cct::save_profile(p, path),
        Catch::StartsWith("cannot save profile " + path + ": it would not load: " + path + ":") &&
            Catch::Contains("leaves a gap [4k, 8k)"));
    CHECK(read_file(path) == "old contents\n");
  }
  SECTION("a missing directory") {
    const std::string missing = dir.file("no/such/dir/p.yaml");
    CHECK_THROWS_WITH(cct::save_profile(sample_profile(), missing),
                      Catch::StartsWith("cannot save profile " + missing + ": "));
  }
  SECTION("the target is a directory: it stays, no temporary is left") {
    fs::create_directory(dir.file("sub"));
    CHECK_THROWS_WITH(cct::save_profile(sample_profile(), dir.file("sub")),
                      Catch::StartsWith("cannot save profile " + dir.file("sub") +
                                        ": renaming the temporary file"));
    CHECK(fs::is_directory(dir.file("sub")));
    CHECK(files_in(dir.path) == std::vector<std::string>{"p.yaml", "sub"});
  }
  SECTION("an unwritable directory") {
    // root ignores directory permissions; the write-failure case below
    // covers it there.
    if (::geteuid() == 0) return;
    fs::permissions(dir.path, fs::perms::owner_read | fs::perms::owner_exec);
    CHECK_THROWS_WITH(cct::save_profile(sample_profile(), path),
                      Catch::StartsWith("cannot save profile " + path + ": creating"));
    CHECK(read_file(path) == "old contents\n");
  }
  SECTION("a failing write keeps the old file") {
    // A file-size limit makes the temporary file's write fail (EFBIG) even
    // for root; done in a child so the limit does not outlive the test.
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::signal(SIGXFSZ, SIG_IGN);
      rlimit limit{64, 64};
      ::setrlimit(RLIMIT_FSIZE, &limit);
      try {
        cct::save_profile(sample_profile(), path);
      } catch (const cct::Error& e) {
        ::_exit(std::string(e.what()).rfind("cannot save profile " + path + ": writing", 0) == 0
                    ? 0
                    : 2);
      }
      ::_exit(1);
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(read_file(path) == "old contents\n");
    CHECK(files_in(dir.path) == std::vector<std::string>{"p.yaml"});
  }
}

TEST_CASE("profile: finding the profile of a machine", "[profile]") {
  TempDir a, b;
  cct::Profile p = sample_profile();
  p.machine.fingerprint = "aaaa000000000000";
  cct::save_profile(p, a.file("aaaa000000000000.yaml"));
  // Named for one machine but tuned on another: the content decides.
  p.machine.fingerprint = "bbbb000000000000";
  cct::save_profile(p, a.file("cccc000000000000.yaml"));
  cct::save_profile(p, b.file("renamed.yaml"));
  write_file(b.file("broken.yaml"), "machine: [");
  write_file(b.file("cccc000000000000.yaml"), "machine: {fingerprint: dddd}\n");

  const std::vector<std::string> dirs = {a.file("missing"), a.path.string(), b.path.string()};
  CHECK(cct::find_profile_for("aaaa000000000000", dirs) == a.file("aaaa000000000000.yaml"));
  CHECK(cct::find_profile_for("bbbb000000000000", {b.path.string(), a.path.string()}) ==
        b.file("renamed.yaml"));
  CHECK(cct::find_profile_for("bbbb000000000000", {a.path.string()}) ==
        a.file("cccc000000000000.yaml"));
  CHECK(cct::find_profile_for("cccc000000000000", dirs) == "");
  CHECK(cct::find_profile_for("dddd", dirs) == b.file("cccc000000000000.yaml"));
}

TEST_CASE("profile: CCT_PROFILE names the file, or none, ahead of the profile directories",
          "[profile]") {
  TempDir dir;
  cct::Profile p = sample_profile();
  p.machine.fingerprint = "aaaa000000000000";
  cct::save_profile(p, dir.file("aaaa000000000000.yaml"));
  setenv("CCT_PROFILE_PATH", dir.path.c_str(), 1);
  unsetenv("CCT_PROFILE");
  const cct::ProfileChoice found = cct::choose_profile("aaaa000000000000");
  CHECK(found.path == dir.file("aaaa000000000000.yaml"));
  CHECK(found.why == "this machine's fingerprint");
  CHECK_FALSE(found.off());
  setenv("CCT_PROFILE", "/elsewhere/p.yaml", 1);
  CHECK(cct::choose_profile("aaaa000000000000").path == "/elsewhere/p.yaml");
  setenv("CCT_PROFILE", "none", 1);
  const cct::ProfileChoice off = cct::choose_profile("aaaa000000000000");
  CHECK(off.path.empty());
  CHECK(off.why == "CCT_PROFILE=none");
  CHECK(off.off());
  unsetenv("CCT_PROFILE_PATH");
}

// A machine's fingerprints, the current form first (Topology::
// fingerprints()): a profile tuned before the stable form, keyed by the
// exact one, is still found, saying so; a profile of the current form wins
// wherever it is.
TEST_CASE("profile: a profile keyed by the earlier form of the fingerprint is still found",
          "[profile]") {
  TempDir first, second;
  cct::Profile p = sample_profile();
  p.machine.fingerprint = "1111000000000000";  // the exact (v1) form
  cct::save_profile(p, first.file("1111000000000000.yaml"));
  setenv("CCT_PROFILE_PATH", (first.path.string() + ":" + second.path.string()).c_str(), 1);
  unsetenv("CCT_PROFILE");
  const std::vector<std::string> mine = {"2222000000000000", "1111000000000000"};
  const cct::ProfileChoice earlier = cct::choose_profile(cct::MachineIdentity{mine});
  CHECK(earlier.path == first.file("1111000000000000.yaml"));
  CHECK(earlier.why == "this machine's fingerprint in an earlier form (1111000000000000)");
  p.machine.fingerprint = "2222000000000000";
  cct::save_profile(p, second.file("2222000000000000.yaml"));
  const cct::ProfileChoice current = cct::choose_profile(cct::MachineIdentity{mine});
  CHECK(current.path == second.file("2222000000000000.yaml"));
  CHECK(current.why == "this machine's fingerprint");
  unsetenv("CCT_PROFILE_PATH");
}

// Where no profile has this machine's fingerprint, the one of the nearest
// machine of its kind (the same summary items, other counts or cache
// sizes) is taken, saying how it differs; one of another kind never is, a
// tie goes to the first file in the directories' order, and an exact match
// always wins.
TEST_CASE("profile: a machine of the same kind lends its profile until an exact one exists",
          "[profile]") {
  TempDir first, second;
  setenv("CCT_PROFILE_PATH", (first.path.string() + ":" + second.path.string()).c_str(), 1);
  unsetenv("CCT_PROFILE");
  const cct::MachineIdentity here{{"4444000000000000", "5555000000000000"},
                                  "pack:2 numa:2 l3:2(16MiB) core:16 pu:32"};
  cct::Profile p = sample_profile();
  const auto save = [&](const TempDir& dir, const std::string& fingerprint,
                        const std::string& summary) {
    p.machine.fingerprint = fingerprint;
    p.machine.summary = summary;
    cct::save_profile(p, dir.file(fingerprint + ".yaml"));
  };
  save(first, "0000000000000001", "pack:2 numa:2 l2:16(1MiB) core:16 pu:32");  // no L3: other kind
  write_file(first.file("unsummarised.yaml"), "machine: {fingerprint: 0000000000000009}\n");
  CHECK(cct::choose_profile(here).path.empty());
  save(first, "0000000000000002", "pack:1 numa:1 l3:1(16MiB) core:4 pu:8");
  save(second, "0000000000000003", "pack:2 numa:2 l3:2(32MiB) core:16 pu:32");
  const cct::ProfileChoice near = cct::choose_profile(here);
  CHECK(near.path == second.file("0000000000000003.yaml"));
  CHECK(near.why == "a machine of the same kind (fingerprint 0000000000000003)");
  CHECK(near.similar);
  CHECK(near.differences == "L3 caches: 32MiB there, 16MiB here");
  save(first, "0000000000000004", "pack:2 numa:2 l3:2(8MiB) core:16 pu:32");  // as near
  CHECK(cct::choose_profile(here).path == first.file("0000000000000004.yaml"));
  save(second, "0000000000000005", here.summary);  // another fingerprint, the same summary
  const cct::ProfileChoice same = cct::choose_profile(here);
  CHECK(same.path == second.file("0000000000000005.yaml"));
  CHECK(same.differences == "nothing the summaries show");
  save(second, "5555000000000000", "pack:9 numa:9 core:9 pu:9");  // the earlier form: exact
  const cct::ProfileChoice exact = cct::choose_profile(here);
  CHECK(exact.path == second.file("5555000000000000.yaml"));
  CHECK_FALSE(exact.similar);
  CHECK(exact.differences.empty());
  unsetenv("CCT_PROFILE_PATH");
}

TEST_CASE("profile: bytes that are not UTF-8 are refused with their line, UTF-8 round-trips",
          "[profile]") {
  // yaml-cpp would read them and write each as U+FFFD: a profile rewritten
  // by the tools would quietly differ from the one read.
  for (const char* bad : {"\xff", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82"}) {
    const std::string yaml = with_line(6, std::string("  summary: pack:1 ") + bad + " core:2");
    CHECK_THROWS_WITH(cct::profile_from_yaml(yaml, "p.yaml", nullptr),
                      Catch::StartsWith("p.yaml:6: not UTF-8 text"));
  }
  const std::string yaml =
      with_line(6, "  summary: pack:1 \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 core:2");
  const cct::Profile p = cct::profile_from_yaml(yaml, "p.yaml", nullptr);
  CHECK(p.machine.summary == "pack:1 \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 core:2");
  CHECK(cct::profile_from_yaml(cct::profile_to_yaml(p), "again", nullptr) == p);
}

TEST_CASE("profile: characters YAML cannot hold are refused with their line", "[profile]") {
  // UTF-8, but outside YAML's printable set: yaml-cpp read a NUL in a key
  // and wrote it back as something else (found by fuzz_profile).
  for (const std::string& bad : {std::string(1, '\0'), std::string("\x1a"), std::string("\x7f"),
                                 std::string("\xc2\x80"), std::string("\xef\xbf\xbf")}) {
    const std::string yaml = with_line(6, "  summary: pack:1 " + bad + " core:2");
    CHECK_THROWS_WITH(cct::profile_from_yaml(yaml, "p.yaml", nullptr),
                      Catch::StartsWith("p.yaml:6: not YAML text: a control character"));
  }
  // A tab is printable, and reads back as it was.
  const std::string yaml = with_line(6, "  summary: \"pack:1\tcore:2\"");
  CHECK(cct::profile_from_yaml(yaml, "p.yaml", nullptr).machine.summary == "pack:1\tcore:2");
}

// Schema 3: a rule says how sure its pick is (margin, noise); older
// schemas refuse the fields, and older profiles still read.
TEST_CASE("profile: a rule's margin and noise read, round-trip, and only from schema 3",
          "[profile]") {
  const std::string yaml = with_line(with_line(1, "schema: 3"), 24,
                                     "            median_s: 1.5e-06\n"
                                     "            margin: -0.02\n"
                                     "            noise: 0.05");
  const cct::Profile p = cct::profile_from_yaml(yaml, "p.yaml", &cct::test::registry());
  const cct::SizeRule& first = p.rules.at(CCT_BCAST).at("shm")[0].sizes[0];
  CHECK(first.margin == -0.02);
  CHECK(first.noise == 0.05);
  CHECK_FALSE(p.rules.at(CCT_BCAST).at("shm")[0].sizes[1].margin.has_value());
  CHECK(cct::profile_from_yaml(cct::profile_to_yaml(p), "again", &cct::test::registry()) == p);
  CHECK_THAT(cct::profile_to_yaml(p), Catch::Contains("margin: -0.02\n"));
  CHECK_THROWS_WITH(cct::profile_from_yaml(with_line(yaml, 1, "schema: 2"), "p.yaml", nullptr),
                    Catch::Contains("p.yaml:25: ") && Catch::Contains("unknown field 'margin'"));
  CHECK_THROWS_WITH(
      cct::profile_from_yaml(with_line(yaml, 25, "            margin: -1"), "p.yaml", nullptr),
      Catch::Contains("margin: expected a fraction above -1"));
  CHECK_NOTHROW(cct::profile_from_yaml(kValidYaml, "old.yaml", &cct::test::registry()));
}
