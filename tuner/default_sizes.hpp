// ccautotune tuner: the communicator sizes of a node a run measures by
// default, and those the cost model predicts (docs/cost_model.md, "The
// plan for bigger nodes").
#pragma once

#include <vector>

namespace cct::tuner {

// first, 2 x first, .. below most, and most (at least first): the
// communicator sizes of a node, doubling.
std::vector<int> doubling_sizes(int first, int most);
// Up to this many ranks a run measures every doubling size by default.
constexpr int kEveryDoublingUpTo = 32;
// The sizes of `doubling` (doubling_sizes) a run measures by default: all
// of them on a node of up to kEveryDoublingUpTo; on a bigger one those up
// to 4 (the cost model's footing), the largest (a full node), and between
// them those 4x apart (16, 64, 256), the doubling sizes between (8, 32,
// 128) predicted by the model and confirmed by a short job instead
// (docs/cost_model.md, "The plan for bigger nodes": a 128-core node's
// plan 29-35 minutes, 33-40 with every doubling size measured).
std::vector<int> measured_sizes(std::vector<int> doubling);
// The default --np: measured_sizes of 2, 4, .. the cores.
std::vector<int> default_nps(int cores);
// The default --predict-np: 2, 4, .. the cores, every doubling.
std::vector<int> default_predicted_nps(int cores);
// --predict-np as given (`asked`), or its default on a node of `cores`.
std::vector<int> predicted_nps(const std::vector<int>& asked, int cores);
// The sizes of `predicted` a short job confirms (shortlist.hpp, "A
// confirming job"): those between the second smallest of `measured` (a
// shortlist needs two sizes below) and the largest, not measured.
// Ascending.
std::vector<int> confirmed_sizes(const std::vector<int>& measured,
                                 const std::vector<int>& predicted);

}  // namespace cct::tuner
