#include "tuner/shape_text.hpp"

namespace cct::tuner {

std::string nodes_text(int nodes) {
  return nodes > 1 ? " (" + std::to_string(nodes) + " nodes)" : "";
}

std::string shape_text(int nodes, int np) {
  return "np=" + std::to_string(np) + nodes_text(nodes);
}

}  // namespace cct::tuner
