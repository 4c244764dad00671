// ccprofile diff: where two profiles choose differently, and by how much
// their measured figures differ there.
#pragma once

#include <string>
#include <vector>

#include "cct/profile.hpp"

namespace cct::tools {

// One line per size range whose choice differs (collective, transport,
// shape, range: A's choice -> B's, with the figures), and per bucket only
// one of them has. Empty when they choose alike everywhere.
std::vector<std::string> diff_profiles(const Profile& a, const Profile& b);

}  // namespace cct::tools
