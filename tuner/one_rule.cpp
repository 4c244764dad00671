#include "tuner/one_rule.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "cct/collectives.hpp"
#include "cct/error.hpp"
#include "cct/units.hpp"
#include "tuner/shape_text.hpp"

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

// How much slower than the library's own call an option may be at a size
// where the library was measured: the noise margin.
constexpr double kHarm = 0.05;

std::string group_text(const Winner& w) {
  return std::string(collective_name(w.collective)) + " " + w.transport + " " +
         shape_text(w.nodes, w.np);
}

std::string two_digits(double x) {
  char text[16];
  std::snprintf(text, sizeof text, "%.2f", x);
  return text;
}

std::string agreement_text(double agreement_s, bool measured) {
  return "choosing by size makes every call agree on its size first (" +
         std::string(measured ? "measured " : "about ") + format_micros(agreement_s) + " us here)";
}

// One option of a bucket: a figure per size.
using Figures = std::vector<double>;

Figures figures_of(std::span<const Winner* const> rows) {
  Figures out;
  for (const Winner* r : rows) out.push_back(r->median_s);
  return out;
}

// The geometric mean over the sizes of a / b.
double mean_of(const Figures& a, const Figures& b) {
  double logs = 0;
  for (std::size_t i = 0; i < a.size(); ++i) logs += std::log(a[i] / b[i]);
  return std::exp(logs / static_cast<double>(a.size()));
}

// The sizes where `option` is slower than `library` beyond kHarm.
std::size_t harmed(const Figures& option, const Figures& library) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < option.size(); ++i) n += option[i] > library[i] * (1 + kHarm);
  return n;
}

// Do no harm, on sizes where the library's own call was measured:
// of the options nowhere slower than it beyond kHarm (choosing by size
// with the agreement paid, one candidate for every size, the library's
// call itself), the lowest geometric mean against it.
std::optional<OneRule> harmless_rule(std::span<const SizeCandidates> bucket,
                                     const std::map<std::string, std::vector<const Winner*>>& all,
                                     const std::vector<const Winner*>& library, double agreement_s,
                                     bool measured) {
  const Figures lib = figures_of(library);
  Figures by_size;
  for (const SizeCandidates& s : bucket) by_size.push_back(s.winner->median_s + agreement_s);
  const std::size_t by_size_harms = harmed(by_size, lib);
  if (by_size_harms == 0) return std::nullopt;  // choosing by size pays for itself everywhere
  const std::vector<const Winner*>* best = &library;
  double best_mean = 1;
  for (const auto& [choice, rows] : all)
    if (const Figures f = figures_of(rows); harmed(f, lib) == 0 && mean_of(f, lib) < best_mean)
      best = &rows, best_mean = mean_of(f, lib);
  OneRule out;
  for (const Winner* row : *best) out.winners.push_back(*row);
  const std::string& choice = best->front()->choice;
  out.note = group_text(*bucket.front().winner) + ": one rule for every size, " + choice + ": " +
             agreement_text(agreement_s, measured) + ", which leaves " +
             std::to_string(by_size_harms) + " of " + std::to_string(bucket.size()) +
             " sizes more than 5% slower than the MPI library's own call; " + choice +
             " is slower nowhere (" + two_digits(best_mean) +
             " of the library, geometric mean over the sizes)";
  return out;
}

// The sizes of a bucket where the library's own call was measured (the
// grid; a crossover size measures only its neighbours' winners), with
// the do-no-harm choice made there (harmless_rule): nothing where the
// library was never measured; a OneRule without winners where choosing by
// size harms no size; else the rule's candidate at every size of the
// bucket, a size it was not measured at taking its row of the size below
// (ranges start at measured sizes, and only the first's figure is kept).
std::optional<OneRule> under_library(std::span<const SizeCandidates> bucket, double agreement_s,
                                     bool measured) {
  std::vector<SizeCandidates> grid;
  for (const SizeCandidates& s : bucket)
    if (std::any_of(s.rows.begin(), s.rows.end(), [](const Winner* r) { return r->library; }))
      grid.push_back(s);
  if (grid.empty()) return std::nullopt;
  const auto candidates = everywhere(grid);
  const auto library = std::find_if(candidates.begin(), candidates.end(),
                                    [](const auto& c) { return c.second.front()->library; });
  if (library == candidates.end()) return std::nullopt;
  std::optional<OneRule> one =
      harmless_rule(grid, candidates, library->second, agreement_s, measured);
  if (!one) return OneRule{};
  const std::string choice = one->winners.front().choice;
  std::vector<Winner> all;
  for (const SizeCandidates& s : bucket) {
    const auto row = std::find_if(s.rows.begin(), s.rows.end(),
                                  [&](const Winner* r) { return r->choice == choice; });
    Winner w = row != s.rows.end() ? **row : all.empty() ? one->winners.front() : all.back();
    w.bytes = s.winner->bytes;
    all.push_back(std::move(w));
  }
  one->winners = std::move(all);
  return one;
}

}  // namespace

std::optional<OneRule> one_rule(std::span<const SizeCandidates> bucket,
                                std::optional<double> measured_agreement_s) {
  const Winner& first = *bucket.front().winner;
  if (collective_info(first.collective).key_parts == nullptr || one_choice(bucket))
    return std::nullopt;
  const double agreement_s = measured_agreement_s.value_or(first.median_s);
  if (std::optional<OneRule> one =
          under_library(bucket, agreement_s, measured_agreement_s.has_value()))
    return one->winners.empty() ? std::nullopt : one;
  const auto candidates = everywhere(bucket);
  const std::vector<const Winner*>* best = nullptr;
  double best_ratio = 1;
  for (const auto& [choice, rows] : candidates)
    if (const double ratio = mean_ratio(bucket, rows, agreement_s); ratio < best_ratio)
      best = &rows, best_ratio = ratio;
  if (best == nullptr) return std::nullopt;
  OneRule out;
  for (const Winner* row : *best) out.winners.push_back(*row);
  out.note = group_text(first) + ": one rule for every size, " + best->front()->choice + ": " +
             agreement_text(agreement_s, measured_agreement_s.has_value()) +
             ", which costs more than the sizes' winners save (" + best->front()->choice + " at " +
             two_digits(best_ratio) + " of winner + agreement, geometric mean over " +
             std::to_string(bucket.size()) + " sizes)";
  return out;
}

}  // namespace cct::tuner
