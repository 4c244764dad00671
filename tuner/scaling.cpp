#include "tuner/scaling.hpp"

#include <algorithm>
#include <cmath>

namespace cct::tuner {

bool fits(const AlgorithmEntry& a, int np) {
  if (np < a.desc->min_ranks || (a.desc->max_ranks > 0 && np > a.desc->max_ranks)) return false;
  return !(a.desc->limits & CCT_LIMIT_POW2_ONLY) || (np & (np - 1)) == 0;
}

std::optional<CostSample> Coster::at(const Winner& w, int nodes, int np) {
  const AlgorithmEntry* a = registry_.find_algorithm(w.collective, w.algorithm);
  if (a == nullptr || !a->states_cost() || !fits(*a, np)) return std::nullopt;
  const ShapeComm& s = shape(nodes, np);
  const std::optional<cct_cost> cost =
      cost_of_call(*a, a->param_values(w.params), s, w.collective, w.bytes, nullptr);
  if (!cost) return std::nullopt;
  return CostSample{*cost, s.span_kinds(), w.median_s};
}

const ShapeComm& Coster::shape(int nodes, int np) {
  auto it = shapes_.find({nodes, np});
  if (it == shapes_.end()) it = shapes_.try_emplace({nodes, np}, shape_(nodes, np)).first;
  return it->second;
}

std::optional<double> scaled_figure(const Winner& at, const Winner* below, int nodes, int np,
                                    const CostModel& model, Coster& coster) {
  const std::optional<CostSample> there = coster.at(at), here = coster.at(at, nodes, np);
  if (!there || !here) return std::nullopt;
  const double g_there = model.seconds(there->cost, there->span_kinds);
  const double g_here = model.seconds(here->cost, here->span_kinds);
  if (!(g_there > 0) || !std::isfinite(g_here)) return std::nullopt;
  const double by_ratio = at.median_s * g_here / g_there;
  const std::optional<CostSample> lower = below ? coster.at(*below) : std::nullopt;
  if (!lower) return by_ratio;
  const double g_lower = model.seconds(lower->cost, lower->span_kinds);
  // Too close in modelled time for a slope to mean anything.
  if (std::abs(g_there - g_lower) < 0.05 * g_there) return by_ratio;
  const double slope = (at.median_s - below->median_s) / (g_there - g_lower);
  // A line that falls below a quarter of the ratio's figure says more
  // about noise than about the candidate.
  return std::max(at.median_s + slope * (g_here - g_there), 0.25 * by_ratio);
}

}  // namespace cct::tuner
