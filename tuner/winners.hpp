// ccautotune tuner: from the raw results to the rules of a profile.
//
// A winner is the row with the lowest median among the rows of one point
// group (collective, transport, nodes, np, bytes); on a tie the earlier row wins;
// but the previous size's winner stays when it is within 5% of the lowest
// (noise should not cut the profile into many ranges). Only final and
// crossover rows compete where a group has them (a pruned row's figure is
// a cheap screening one); check rows test the profile and never shape it.
// Each shape is tuned on its own: the rules of one (collective, transport)
// have, for each measured node count, one communicator-size bucket per
// measured np of that node count: it holds from that np up to the next
// measured np minus 1; the smallest np's bucket starts at the node count,
// so at 1 on one node (a profile tuned from 2 ranks up is the best guess
// for 1 too, and a 1-rank call is trivial for every algorithm), and the
// largest np's bucket ends at max. In a bucket,
// each measured size's winner holds from that size up to the next measured
// size; the first range starts at 0 and the last ends at max. Neighbouring
// ranges with the same winner (algorithm and parameter values) are merged;
// a merged range keeps the median of its first measured size.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cct/profile.hpp"
#include "cct/registry.hpp"
#include "tuner/results_csv.hpp"

namespace cct::tuner {

struct Winner {
  cct_collective collective = CCT_BARRIER;
  std::string transport;
  int nodes = 1;
  int np = 0;
  int64_t bytes = 0;
  std::string algorithm;
  std::map<std::string, int64_t> params;  // every parameter, by name
  double median_s = 0;
  bool library = false;  // the collective library's own call (CCT_CAP_LIBRARY)
};

struct Winners {
  // One per point group, ordered by collective, transport, nodes, np, bytes.
  std::vector<Winner> best;
  // Rows left out, one line per cause: an unknown collective or algorithm,
  // or parameters the registered algorithm does not accept (the results
  // were measured with plugins that have changed since).
  std::vector<std::string> ignored;
};

// The index of the winner among medians (not empty): the lowest (the
// earlier on a tie), unless `library`, the index of the collective library's
// own call among them, is within 5% of it: a candidate replaces the library
// only where it is faster by more than the noise of the figures (do no
// harm). Else `previous`, the index of the previous size's winner, is kept
// when within 5% of the lowest (no needless rule boundaries).
std::size_t choose_winner(std::span<const double> medians, std::optional<std::size_t> previous,
                          std::optional<std::size_t> library = std::nullopt);

// row as a Winner, or why the registry does not accept it (an unknown
// collective or algorithm, parameters it does not declare or allow).
std::string read_winner(const ResultRow& row, const Registry& registry, Winner* out);

// The winner of every point group of rows whose algorithm registry knows.
Winners pick_winners(const std::vector<ResultRow>& rows, const Registry& registry);

// The rules of a profile from winners (ordered as pick_winners orders them).
std::map<cct_collective, TransportRules> build_rules(const std::vector<Winner>& winners);

// A table of the rules for people: collective, transport, np range (with
// the nodes where more than 1: "4-7 (2 nodes)"), size range,
// algorithm(params), median in microseconds; one line per size rule.
std::string rules_table(const std::map<cct_collective, TransportRules>& rules,
                        const Registry& registry);

// "the MPI library's own call (mpi) kept in 9 of 41 size ranges\n" where
// the library won some, else "": where the profile leaves the library be.
// The library's call is the algorithm that needs CCT_CAP_LIBRARY.
std::string library_kept(const std::map<cct_collective, TransportRules>& rules,
                         const Registry& registry);

}  // namespace cct::tuner
