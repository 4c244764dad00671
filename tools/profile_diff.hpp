// ccprofile diff: where two profiles choose differently, and by how much
// their measured figures differ there.
#pragma once

#include <string>
#include <vector>

#include "cct/profile.hpp"
#include "cct/registry.hpp"

namespace cct::tools {

// One line per size range whose choice differs (collective, transport,
// shape, range: A's choice -> B's, with the figures, then whether the
// change is kBeyondNoise by B's figures: B's figure of A's pick, a
// fallback of its rule, against its pick's, beyond B's noise there;
// "within the noise", or "not told" where B has no figure of A's pick and
// no tie), and per bucket only one of them has. Empty when they choose
// alike everywhere. Choices are compared and written as CCT_FORCE writes
// them (format_rule_choice).
extern const char* const kBeyondNoise;
std::vector<std::string> diff_profiles(const Profile& a, const Profile& b,
                                       const Registry& registry);

}  // namespace cct::tools
