// ccautotune tuner: how its lines name a communicator's shape, the same in
// every line (results, checks, rules, predictions, failures).
#pragma once

#include <string>

namespace cct::tuner {

// "" on one node, " (2 nodes)" across nodes.
std::string nodes_text(int nodes);
// "np=8" on one node, "np=8 (2 nodes)" across nodes.
std::string shape_text(int nodes, int np);

}  // namespace cct::tuner
