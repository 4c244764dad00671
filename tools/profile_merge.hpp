// ccprofile merge: one profile from two of the same machine, e.g. one
// node's and a cluster's, so that one file serves every shape.
#pragma once

#include "cct/profile.hpp"

namespace cct::tools {

// `base` with `added`'s rules: for each collective, transport and node
// count that `added` has rules for, its buckets replace `base`'s (the two
// runs measured that shape apart; the later word is `added`'s); every
// other bucket of `base` stays. The machine keeps the larger shape tuned,
// the date is `added`'s, and the tuning settings say what was merged.
// Throws cct::Error when the fingerprints differ.
Profile merge_profiles(const Profile& base, const Profile& added, const std::string& base_name,
                       const std::string& added_name);

}  // namespace cct::tools
