// ccautotune tuner: the time written into profiles and reports.
#pragma once

#include <string>

namespace cct::tuner {

// Now, in UTC, ISO 8601 to the second: "2026-11-24T05:36:11Z".
std::string utc_now();

}  // namespace cct::tuner
