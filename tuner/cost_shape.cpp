#include "tuner/cost_shape.hpp"

#include "cct/collectives.hpp"
#include "cct/error.hpp"
#include "tuner/measure.hpp"

namespace cct::tuner {
namespace {

// A level kind's name in a cost model's terms (cct_level_kind's order).
constexpr const char* kLevelKindNames[] = {"l2", "l3", "numa", "package", "node"};

}  // namespace

ShapeComm::ShapeComm(int np, int nodes, std::vector<LevelPartition> levels)
    : np_(np), nodes_(nodes), levels_(std::move(levels)) {
  for (const LevelPartition& l : levels_)
    c_levels_.push_back(cct_level{l.kind, l.groups, l.group_of.data()});
  comm_ = cct_comm{.struct_size = sizeof(cct_comm),
                   .abi_version = CCT_ABI_VERSION,
                   .rank = 0,
                   .size = np_,
                   .transport = nullptr,
                   .nlevels = static_cast<int32_t>(c_levels_.size()),
                   .levels = c_levels_.data(),
                   .level_transport = nullptr,
                   .library = nullptr,
                   .timeout_s = 0};
}

std::vector<std::string> ShapeComm::span_kinds() const {
  std::vector<std::string> kinds;
  for (const LevelPartition& l : levels_) kinds.emplace_back(kLevelKindNames[l.kind]);
  kinds.emplace_back(nodes_ > 1 ? "network" : "node");
  return kinds;
}

ShapeComm job_shape(const Topology& topo, int nodes, int np) {
  if (nodes < 1 || np % nodes != 0)
    throw Error("job_shape: " + std::to_string(np) + " ranks do not fill " + std::to_string(nodes) +
                    " nodes alike",
                CCT_ERR_INVALID_ARG);
  const int per_node = np / nodes;
  std::vector<int> pu_of_rank, node_of_rank;
  for (int r = 0; r < np; ++r) {
    pu_of_rank.push_back(topo.pu_for_rank(r % per_node, per_node));
    if (nodes > 1) node_of_rank.push_back(r / per_node);
  }
  return ShapeComm(np, nodes, topo.levels_for(pu_of_rank, node_of_rank));
}

std::optional<cct_cost> cost_of_call(const AlgorithmEntry& algorithm,
                                     std::span<const int64_t> params, const ShapeComm& shape,
                                     cct_collective c, int64_t bytes, std::string* why) {
  // Rank 0's arguments of the equal pattern: a vector collective's blocks
  // all of one size, the others as the tuner times them.
  const MeasuredCalls calls(Call{c, bytes, {CountPattern::kEqual}}, shape.np(), 0, 0);
  cct_cost cost{};
  cct_error err{};
  if (algorithm.cost(shape.raw(), &calls.args().front(), params.data(), &cost, &err) == CCT_OK)
    return cost;
  if (why) *why = err.message;
  return std::nullopt;
}

}  // namespace cct::tuner
