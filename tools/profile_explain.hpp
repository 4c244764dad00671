// ccprofile explain: which rule a call of a collective and size meets on a
// communicator shape, and what the runtime would run for it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cct/profile.hpp"
#include "cct/registry.hpp"

namespace cct::tools {

struct ExplainQuery {
  cct_collective collective = CCT_BARRIER;
  int64_t bytes = 0;
  int np = 2;
  int nodes = 1;
  std::string transport = "shm";
  // The call's element type, which picks a reduction's typed rules where
  // the profile has some (RankBucket::datatypes); CCT_DATATYPE_COUNT: a
  // type no typed bucket names.
  cct_datatype dtype = CCT_DATATYPE_COUNT;
  // The call's root, which picks a rooted collective's rules for roots
  // other than 0 where the profile has some (RankBucket::nonzero_roots).
  int root = 0;
  // CCT_PROFILE=none: a call no rule runs takes the built-in default even
  // in an MPI program (Runtime::Options::library_without_rule).
  bool profile_off = false;
};

// The explanation, one line per fact: the rule met (CCT_FORCE's or the
// profile's, with its range and measured figure, and its fallbacks) or
// the built-in default and why, the warnings the selector gives for this
// shape, and what keeps each candidate from running a call (a
// power-of-two-only algorithm on 3 ranks, a capability the transport
// lacks), where the runtime would then take the next candidate or the
// default.
std::vector<std::string> explain(const Profile& profile, const std::vector<ForceRule>& force,
                                 const Registry& registry, const ExplainQuery& query);

}  // namespace cct::tools
