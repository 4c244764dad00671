// ccautotune tuner: how good the profile is between the sizes it measured.
//
// The profile picks, for a size between two grid sizes, the winner of the
// size below. The search's check rows measure that choice and its rivals at
// such off-grid sizes, in both jobs where there are two; the accuracy is
// how the choice compares with the fastest of them there, each weighed by
// its slower job. Computed from the results file, so a resumed run
// reports on every check, not only this run's. Where the profile has one
// rule for every size of a collective whose size no rank knows alone
// (gatherv, scatterv, alltoallv: one_rule.hpp), another choice counts with
// the agreement a rule by size would make each call pay (the measured
// 8-byte allreduce, winners.hpp: agreements), since the one rule exists to
// avoid it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "cct/profile.hpp"
#include "cct/registry.hpp"
#include "tuner/results_csv.hpp"

namespace cct::tuner {

struct Accuracy {
  double tolerance = 0.05;  // "as good as the fastest" within this: timing noise
  std::size_t checked = 0;  // off-grid sizes where the profile's choice was measured
  std::size_t within = 0;   // of those, where it was within `tolerance` of the fastest
  // Of the others (the misses), where the choice is the MPI library's own
  // call, kept there where a candidate's win was within the noise (the
  // library wins ties) or lost outside the tuner (the outside check's
  // give-backs): such a miss may be the price of doing no harm where the
  // tuner's figures flatter its algorithms' small calls, where a miss on
  // another choice is a pick the checks refute.
  std::size_t missed_on_library = 0;
  double mean_ratio = 1;   // choice / fastest, averaged over the checked sizes
  double worst_ratio = 1;  // the largest choice / fastest
  // where, e.g. "bcast shm np=2 96k: chain(segment=16k) 1.31x binomial";
  // "np=8 (2 nodes)" for a communicator spanning nodes
  std::string worst;
};

Accuracy profile_accuracy(const std::vector<ResultRow>& rows, const Profile& profile,
                          const Registry& registry);

// The same over every measured point of rows (the figures that competed
// for its winner, winners.hpp): how a profile does on measurements it was
// not built from, such as those of a shape its rules were predicted for
// (ccprofile check), or those of an exhaustive search, with a tolerance of
// its own.
Accuracy measured_accuracy(const std::vector<ResultRow>& rows, const Profile& profile,
                           const Registry& registry, double tolerance = 0.05);

// The same over the rows timed at a root other than 0 (search.hpp, step
// 7), each against the rule a call at that root takes: the profile's
// rules of roots other than 0 where it has some for the shape, else those
// of every call; with `root_zero_rules`, those of every call alone (what
// the profile would choose there without rules of its roots).
Accuracy root_accuracy(const std::vector<ResultRow>& rows, const Profile& profile,
                       const Registry& registry, bool root_zero_rules = false,
                       double tolerance = 0.05);

// One line for people, e.g. "off-grid checks: 21 sizes, the profile's
// choice within 5% of the fastest at 19; 2 missed, 1 of them kept on the
// library; mean 1.02x, worst 1.31x (...)"; `what` names the sizes.
std::string describe(const Accuracy& accuracy, const std::string& what = "off-grid checks");

}  // namespace cct::tuner
