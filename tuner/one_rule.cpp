#include "tuner/one_rule.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "cct/collectives.hpp"
#include "cct/error.hpp"
#include "cct/units.hpp"

namespace cct::tuner {
namespace {

bool one_choice(std::span<const SizeCandidates> bucket) {
  return std::all_of(bucket.begin(), bucket.end(), [&](const SizeCandidates& s) {
    return s.winner->choice == bucket.front().winner->choice;
  });
}

// Each candidate's row at every size, by its choice (algorithm and
// parameters); a candidate missing at some size is left out. Of two rows
// of one candidate at one size the faster counts.
std::map<std::string, std::vector<const Winner*>> everywhere(
    std::span<const SizeCandidates> bucket) {
  std::map<std::string, std::vector<const Winner*>> rows;
  for (std::size_t i = 0; i < bucket.size(); ++i)
    for (const Winner* row : bucket[i].rows) {
      std::vector<const Winner*>& at = rows[row->choice];
      if (at.size() == i) at.push_back(row);
      if (at.size() == i + 1 && row->median_s < at.back()->median_s) at.back() = row;
    }
  std::erase_if(rows, [&](const auto& entry) { return entry.second.size() != bucket.size(); });
  return rows;
}

// The geometric mean over the sizes of row / (winner + agreement).
double mean_ratio(std::span<const SizeCandidates> bucket, std::span<const Winner* const> rows,
                  double agreement_s) {
  double logs = 0;
  for (std::size_t i = 0; i < bucket.size(); ++i)
    logs += std::log(rows[i]->median_s / (bucket[i].winner->median_s + agreement_s));
  return std::exp(logs / static_cast<double>(bucket.size()));
}

std::string note(const Winner& w, const std::string& choice, double agreement_s, bool measured,
                 double ratio, std::size_t sizes) {
  const std::string how = measured ? "measured " : "about ";
  char mean[16];
  std::snprintf(mean, sizeof mean, "%.2f", ratio);
  return std::string(collective_name(w.collective)) + " " + w.transport +
         " np=" + std::to_string(w.np) +
         (w.nodes > 1 ? " (" + std::to_string(w.nodes) + " nodes)" : "") +
         ": one rule for every size, " + choice +
         ": choosing by size makes every call agree on its size first (" + how +
         format_micros(agreement_s) + " us here), which costs more than the sizes' winners save (" +
         choice + " at " + mean + " of winner + agreement, geometric mean over " +
         std::to_string(sizes) + " sizes)";
}

}  // namespace

std::optional<OneRule> one_rule(std::span<const SizeCandidates> bucket,
                                std::optional<double> measured_agreement_s) {
  const Winner& first = *bucket.front().winner;
  if (collective_info(first.collective).key_parts == nullptr || one_choice(bucket))
    return std::nullopt;
  const double agreement_s = measured_agreement_s.value_or(first.median_s);
  const std::vector<const Winner*>* best = nullptr;
  double best_ratio = 1;
  const auto candidates = everywhere(bucket);
  for (const auto& [choice, rows] : candidates)
    if (const double ratio = mean_ratio(bucket, rows, agreement_s); ratio < best_ratio)
      best = &rows, best_ratio = ratio;
  if (best == nullptr) return std::nullopt;
  OneRule out;
  for (const Winner* row : *best) out.winners.push_back(*row);
  out.note = note(first, best->front()->choice, agreement_s, measured_agreement_s.has_value(),
                  best_ratio, bucket.size());
  return out;
}

}  // namespace cct::tuner
