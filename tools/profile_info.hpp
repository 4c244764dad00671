// ccinfo's profile section: the profile the runtime would use on this
// machine, why that one, what it was tuned on, and the rules it leaves out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cct/profile.hpp"
#include "cct/registry.hpp"

namespace cct::tools {

struct ProfileInfo {
  ProfileChoice choice;           // path empty: no profile
  std::vector<std::string> dirs;  // where it was looked for
  std::optional<Profile> profile;
  std::string error;                  // why the file cannot be used as a whole
  std::vector<std::string> left_out;  // rules disabled alone (file:line: why)
  bool this_machine = false;          // its fingerprint is one of this machine's
  // Per node count, the rank ranges of its buckets: "1 node: np [1, max]";
  // a reduction's rules for some element types apart: "1 node, allreduce
  // of float, double on shm: np [2, max]".
  std::vector<std::string> shapes;
};

// Reads it the way the runtime does (RuleProblems::kDisableRule), chosen
// as the runtime chooses it (choose_profile).
ProfileInfo profile_info(const Registry& registry, const MachineIdentity& machine);

}  // namespace cct::tools
