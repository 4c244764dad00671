// ccautotune tuner: which job of a run: its transport and its
// communicator's shape. What the job times (plan_time.hpp) and the kept
// shortlists (kept_shortlists.hpp) are kept by.
#pragma once

#include <compare>
#include <string>

namespace cct::tuner {

struct JobId {
  std::string transport;
  int nodes = 1;  // the nodes its ranks span
  int np = 0;     // its ranks
  auto operator<=>(const JobId&) const = default;
};

}  // namespace cct::tuner
