// The shortlists kept beside the results (tuner/kept_shortlists.hpp): a
// size's second job, and a resumed run, read back the shortlist its first
// job made; a run that does not resume starts without; a malformed file is
// named with its line, and costs only what it held.
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "tuner/kept_shortlists.hpp"

namespace {

using cct::tuner::Dropped;
using cct::tuner::KeptShortlists;
using cct::tuner::Shortlist;

// A shortlist of np ranks over `nodes` nodes from np 4 leaving `choice`
// out of bcast at 64 B.
Shortlist shortlist(int np, const std::string& choice, int nodes = 1) {
  Shortlist s{.nodes = nodes, .np = np, .from_np = 4, .keep = 2, .lag = 1.25};
  s.dropped[{CCT_BCAST, "shm", 64}][choice] = Dropped::kSlower;
  s.kept = 7;
  s.kept_timed_s = 0.125;
  return s;
}

// What the constructor says on std::cout.
std::string said_by_opening(const std::string& results, bool resume) {
  std::ostringstream said;
  std::streambuf* const before = std::cout.rdbuf(said.rdbuf());
  KeptShortlists kept(results, resume);
  std::cout.rdbuf(before);
  return said.str();
}

struct TempDir {
  std::string path = (std::filesystem::temp_directory_path() / "cct_kept_XXXXXX").string();
  TempDir() { REQUIRE(::mkdtemp(path.data()) != nullptr); }
  ~TempDir() { std::filesystem::remove_all(path); }
};

}  // namespace

TEST_CASE("kept shortlists: a second job reads back its first job's", "[cost]") {
  TempDir dir;
  const std::string results = dir.path + "/f075faeb24038433.csv";
  const std::string path = cct::tuner::kept_shortlists_path(results);
  CHECK(path == dir.path + "/f075faeb24038433.shortlists");
  {
    KeptShortlists kept(results, false);
    CHECK_FALSE(kept.find({"shm", 1, 8}));
    kept.keep("shm", shortlist(8, "chain"));
    kept.keep("shm", shortlist(8, "binomial"));  // made again: replaces the first
    kept.keep("shm", shortlist(16, "ring"));
    kept.keep("mpi", shortlist(8, "pairwise", 2));  // 2 nodes x 4
    CHECK(kept.find({"shm", 1, 8})->dropped == shortlist(8, "binomial").dropped);
  }
  KeptShortlists resumed(results, true);
  const std::optional<Shortlist> at8 = resumed.find({"shm", 1, 8});
  REQUIRE(at8);
  CHECK(at8->dropped == shortlist(8, "binomial").dropped);
  CHECK(at8->from_np == 4);
  CHECK(at8->lag == 1.25);
  CHECK(at8->kept == 7);
  CHECK(at8->kept_timed_s == 0.125);  // what the second job's plan is made from
  CHECK(resumed.find({"shm", 1, 16})->dropped == shortlist(16, "ring").dropped);
  CHECK(resumed.find({"mpi", 2, 8})->dropped == shortlist(8, "pairwise", 2).dropped);
  CHECK_FALSE(resumed.find({"mpi", 1, 8}));
  CHECK_FALSE(resumed.find({"shm", 2, 8}));
  CHECK_FALSE(resumed.find({"shm", 1, 4}));

  // A run that does not resume measures anew: nothing kept.
  CHECK(said_by_opening(results, false).empty());
  CHECK_FALSE(std::filesystem::exists(path));
}

TEST_CASE("kept shortlists: a malformed file is named and written anew", "[cost]") {
  TempDir dir;
  const std::string results = dir.path + "/f075faeb24038433.csv";
  const std::string path = cct::tuner::kept_shortlists_path(results);
  KeptShortlists(results, false).keep("shm", shortlist(8, "chain"));  // lines 1-3
  const auto opened_after = [&](const std::string& appended) {
    std::ofstream(path, std::ios::app) << appended;
    const std::string said = said_by_opening(results, true);
    CHECK_FALSE(std::filesystem::exists(path));
    KeptShortlists(results, false).keep("shm", shortlist(8, "chain"));
    return said;
  };
  CHECK(opened_after("shortlist\tshm\ttwo\n") ==
        "ccautotune: " + path +
            ":4: expected 'shortlist<TAB>transport<TAB>lines', got 'shortlist\tshm\ttwo'; second "
            "jobs make their shortlists again, and it is written anew\n");
  CHECK_THAT(opened_after("shortlist\tshm\t3\n1 16 4 0 2 0 1 0 0\n"),
             Catch::Contains(path + ":4: the file ends after 1 of the shortlist's 3 lines"));
  CHECK_THAT(opened_after("shortlist\tshm\t1\n1 16 4\n"),
             Catch::Contains(path + ":4: shortlist: no 'nodes np from_np"));
  // The file as kept reads back whole.
  CHECK(said_by_opening(results, true).empty());
  CHECK(KeptShortlists(results, true).find({"shm", 1, 8}));
}
