#include "tuner/segmentation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

namespace cct::tuner {
namespace {

constexpr double kNone = std::numeric_limits<double>::infinity();

// Tie-breaks, far below any real loss (a loss of 1% of one grid step is
// 0.01): a pick other than the library's call, a spread of its figures, a
// pick that is not its algorithm's default values.
constexpr double kNotLibrary = 1e-4;
constexpr double kPerSpread = 1e-5;
constexpr double kNotDefault = 1e-6;

// Two sums this close are one tie.
constexpr double kTied = 1e-9;

double log_size(int64_t bytes) {
  return std::log2(static_cast<double>(std::max<int64_t>(bytes, 1)));
}

// Each size's share of log size, in units of the median gap between
// neighbouring sizes; 1 for a bucket of one size.
std::vector<double> weights(std::span<const SizeFigures> sizes) {
  const std::size_t n = sizes.size();
  std::vector<double> gaps;
  for (std::size_t i = 1; i < n; ++i)
    gaps.push_back(log_size(sizes[i].bytes) - log_size(sizes[i - 1].bytes));
  std::vector<double> out(n, 1.0);
  if (gaps.empty()) return out;
  std::vector<double> sorted = gaps;
  std::ranges::sort(sorted);
  const double unit = std::max(sorted[sorted.size() / 2], 1e-9);
  for (std::size_t i = 0; i < n; ++i) {
    const double below = i > 0 ? gaps[i - 1] : gaps[i];
    const double above = i + 1 < n ? gaps[i] : gaps[i - 1];
    out[i] = std::max((below + above) / 2 / unit, 1e-3);
  }
  return out;
}

// The candidates of a bucket: every choice competing at some size, with
// its row at each size where it competes (null elsewhere).
struct Candidate {
  std::string choice;
  bool library = false;  // the MPI library's own call
  std::string algorithm;
  bool default_params = false;
  std::vector<const Winner*> at;
};

std::vector<Candidate> candidates_of(std::span<const SizeFigures> sizes) {
  std::map<std::string, std::size_t> index;
  std::vector<Candidate> out;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    for (const Winner* row : sizes[i].competing) {
      auto [it, added] = index.try_emplace(row->choice, out.size());
      if (added)
        out.push_back({row->choice, row->library, row->algorithm, row->default_params,
                       std::vector<const Winner*>(sizes.size(), nullptr)});
      const Winner*& slot = out[it->second].at[i];
      if (slot == nullptr || row->median_s < slot->median_s) slot = row;
    }
  return out;
}

// The ratio of confirmed to full figures at a size (SizeFigures::timed):
// the median over the candidates that have both; nothing where none has.
std::optional<double> confirmed_over_full(const SizeFigures& size) {
  std::vector<double> ratios;
  for (const SizeFigures::Timed& t : size.timed)
    for (const Winner* confirmed : size.competing)
      if (t.full && confirmed->choice == t.row->choice && t.row->median_s > 0)
        ratios.push_back(confirmed->median_s / t.row->median_s);
  if (ratios.empty()) return std::nullopt;
  std::ranges::sort(ratios);
  return ratios[ratios.size() / 2];
}

// A candidate's figure at size i (segmentation.hpp says which): its
// competing row's; its other timing scaled to the confirmations, no
// faster than the fastest of them; its figure interpolated between its
// sizes; or none (kNone).
double figure_at(const Candidate& c, std::span<const SizeFigures> sizes, std::size_t i) {
  if (c.at[i] != nullptr) return c.at[i]->median_s;
  const auto timed = std::ranges::find_if(
      sizes[i].timed, [&](const SizeFigures::Timed& t) { return t.row->choice == c.choice; });
  if (timed != sizes[i].timed.end()) {
    const std::optional<double> scale = confirmed_over_full(sizes[i]);
    if (!scale) return kNone;
    const double fastest =
        (*std::ranges::min_element(sizes[i].competing, {}, &Winner::median_s))->median_s;
    return std::max(timed->row->median_s * *scale, fastest);
  }
  if (std::ranges::find(sizes[i].measured, c.choice) != sizes[i].measured.end()) return kNone;
  std::optional<std::size_t> below, above;
  for (std::size_t j = i; j-- > 0;)
    if (c.at[j] != nullptr) {
      below = j;
      break;
    }
  for (std::size_t j = i + 1; j < sizes.size(); ++j)
    if (c.at[j] != nullptr) {
      above = j;
      break;
    }
  if (!below || !above) return kNone;
  const double x0 = log_size(sizes[*below].bytes), x1 = log_size(sizes[*above].bytes);
  const double t = x1 > x0 ? (log_size(sizes[i].bytes) - x0) / (x1 - x0) : 0;
  const double a = c.at[*below]->median_s, b = c.at[*above]->median_s;
  if (a <= 0 || b <= 0) return a + t * (b - a);  // no logarithm of 0 s
  return std::exp(std::log(a) + t * (std::log(b) - std::log(a)));
}

// The row a candidate's pick at size i stands on: its own there, else its
// nearest one, with the size and the interpolated figures.
Winner pick_row(const Candidate& c, std::span<const SizeFigures> sizes, std::size_t i,
                double figure) {
  if (c.at[i] != nullptr) return *c.at[i];
  const Winner* nearest = nullptr;
  for (std::size_t d = 1; nearest == nullptr; ++d) {
    if (i >= d && c.at[i - d] != nullptr) nearest = c.at[i - d];
    if (nearest == nullptr && i + d < sizes.size() && c.at[i + d] != nullptr) nearest = c.at[i + d];
  }
  Winner w = *nearest;
  w.bytes = sizes[i].bytes;
  w.min_s = figure * (nearest->median_s > 0 ? nearest->min_s / nearest->median_s : 1);
  w.median_s = figure;
  return w;
}

// The figures of one size as they count: the MPI library's own call's
// less the size's noise, so that it wins every tie within the noise (do no
// harm); a value of an algorithm's parameters other than its defaults no
// faster than the defaults where it is within half the noise of them, so
// that values differing only in noise do not flip from one tune to the
// next; every other as measured.
std::vector<double> counted_figures(const std::vector<Candidate>& cands,
                                    const std::vector<double>& figures, double noise) {
  std::vector<double> out(figures);
  for (std::size_t c = 0; c < cands.size(); ++c) {
    if (cands[c].library) out[c] = figures[c] / (1 + noise);
    if (cands[c].library || cands[c].default_params) continue;
    for (std::size_t d = 0; d < cands.size(); ++d)
      if (cands[d].default_params && cands[d].algorithm == cands[c].algorithm &&
          figures[d] <= figures[c] * (1 + noise / 2))
        out[c] = std::max(out[c], figures[d]);
  }
  return out;
}

// The noise of a size's figures: the spread of the fastest's repetitions
// (tie_margin, 5-10%), or, where the candidates were confirmed in two jobs,
// how far apart the two jobs put them (the median over the candidates),
// if that is more, up to kMostNoise: on the project's 2-core VM fresh
// processes disagree by 10-30% where one process's repetitions agree
// within 5%, and a pick must hold in every process.
constexpr double kMostNoise = 0.25;

double size_noise(const SizeFigures& size) {
  const Winner* fastest = *std::ranges::min_element(size.competing, {}, &Winner::median_s);
  std::vector<double> apart;
  for (const Winner* w : size.competing)
    if (w->jobs_apart > 0) apart.push_back(w->jobs_apart);
  double jobs = 0;
  if (!apart.empty()) {
    std::ranges::sort(apart);
    jobs = apart[apart.size() / 2];
  }
  return std::max(tie_margin(as_contender(*fastest, false)), std::min(jobs, kMostNoise));
}

// How much slower the best other candidate than `pick` is among one size's
// figures, as a fraction of the pick's; nothing where none other has one.
std::optional<double> margin_at(const std::vector<double>& figures, std::size_t pick) {
  double other = kNone;
  for (std::size_t c = 0; c < figures.size(); ++c)
    if (c != pick) other = std::min(other, figures[c]);
  if (other == kNone || figures[pick] <= 0) return std::nullopt;
  return other / figures[pick] - 1;
}

// Every size's pick by the dynamic program of segmentation.hpp.
Segmentation segment_all(std::span<const SizeFigures> sizes) {
  const std::size_t n = sizes.size();
  const std::vector<Candidate> cands = candidates_of(sizes);
  const std::size_t k = cands.size();
  const std::vector<double> weight = weights(sizes);
  // figure[i][c], the size's fastest and its noise.
  std::vector<std::vector<double>> figure(n, std::vector<double>(k, kNone));
  std::vector<double> noise(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t c = 0; c < k; ++c) figure[i][c] = figure_at(cands[c], sizes, i);
    noise[i] = size_noise(sizes[i]);
  }
  std::vector<double> sorted_noise = noise;
  std::ranges::sort(sorted_noise);
  const double price = sorted_noise[n / 2];

  // loss[i][c]: weighted, with the tie-breaks; kNone where c cannot be picked.
  std::vector<std::vector<double>> loss(n, std::vector<double>(k, kNone));
  for (std::size_t i = 0; i < n; ++i) {
    const std::vector<double> counted = counted_figures(cands, figure[i], noise[i]);
    const auto fastest = std::ranges::min_element(counted);
    const double best = *fastest;
    const double free = cands[fastest - counted.begin()].library ? 0 : noise[i] / 2;
    for (std::size_t c = 0; c < k; ++c) {
      if (figure[i][c] == kNone) continue;
      const Candidate& cand = cands[c];
      // A fastest of 0 s (nothing to time): any other figure is a whole loss.
      const double ratio = best > 0 ? counted[c] / best : (counted[c] > 0 ? 2 : 1);
      const double r = std::max(0.0, ratio - 1 - (cand.library ? 0 : free));
      const Winner* row = cand.at[i];  // null where interpolated: no spread known
      const double spread =
          row != nullptr && row->median_s > 0 ? (row->median_s - row->min_s) / row->median_s : 0;
      loss[i][c] = weight[i] * r + (cand.library ? 0 : kNotLibrary) + kPerSpread * spread +
                   (cand.default_params ? 0 : kNotDefault);
    }
  }

  // cost[i][c]: the cheapest path over sizes 0..i ending on c; from[i][c]
  // its pick at i-1.
  std::vector<std::vector<double>> cost(n, std::vector<double>(k, kNone));
  std::vector<std::vector<std::size_t>> from(n, std::vector<std::size_t>(k, 0));
  cost[0] = loss[0];
  for (std::size_t i = 1; i < n; ++i) {
    std::size_t cheapest = 0;
    for (std::size_t c = 1; c < k; ++c)
      if (cost[i - 1][c] < cost[i - 1][cheapest]) cheapest = c;
    for (std::size_t c = 0; c < k; ++c) {
      if (loss[i][c] == kNone) continue;
      const double stay = cost[i - 1][c], move = cost[i - 1][cheapest] + price;
      // Staying wins a tie: no needless boundary.
      const bool stays = stay <= move + kTied;
      cost[i][c] = (stays ? stay : move) + loss[i][c];
      from[i][c] = stays ? c : cheapest;
    }
  }
  std::size_t last = 0;
  for (std::size_t c = 1; c < k; ++c)
    if (cost[n - 1][c] < cost[n - 1][last]) last = c;
  Segmentation out{.switch_price = price};
  out.picks.resize(n);
  for (std::size_t i = n; i-- > 0;) {
    out.picks[i] = pick_row(cands[last], sizes, i, figure[i][last]);
    out.picks[i].margin = margin_at(figure[i], last);
    out.picks[i].noise = noise[i];
    if (i > 0) last = from[i][last];
  }
  return out;
}

// The competing row of `choice` at a size; null where it has none.
const Winner* row_of(const SizeFigures& size, const std::string& choice) {
  const auto it = std::ranges::find(size.competing, choice, &Winner::choice);
  return it == size.competing.end() ? nullptr : *it;
}

// Whether `upper` is no slower than `lower` at a size where both were
// timed, the library's figure counted less the size's noise.
bool upper_wins(const Winner& lower, const Winner& upper, double noise) {
  const auto counted = [&](const Winner& w) {
    return w.library ? w.median_s / (1 + noise) : w.median_s;
  };
  return counted(upper) <= counted(lower);
}

// Where the picks below and above a run of sizes between confirmed ones
// differ, the first size of the run that takes the upper one
// (segmentation.hpp).
std::size_t boundary_in(std::span<const SizeFigures> run, const Winner& lower,
                        const Winner& upper) {
  bool timed_both = false;
  for (std::size_t i = 0; i < run.size(); ++i) {
    const Winner* a = row_of(run[i], lower.choice);
    const Winner* b = row_of(run[i], upper.choice);
    if (a == nullptr || b == nullptr) continue;
    timed_both = true;
    if (upper_wins(*a, *b, size_noise(run[i]))) return i;
  }
  if (timed_both) return run.size();
  const double middle = (log_size(lower.bytes) + log_size(upper.bytes)) / 2;
  std::size_t i = 0;
  while (i < run.size() && log_size(run[i].bytes) < middle) ++i;
  return i;
}

// The pick `side` (a confirmed size's) at a size between: its own row
// there where it competed, else a copy of side's at that size.
Winner between_pick(const SizeFigures& size, const Winner& side) {
  const Winner* own = row_of(size, side.choice);
  Winner w = own != nullptr ? *own : side;
  w.bytes = size.bytes;
  w.margin.reset();  // the confirmed sizes decided; this one only places a boundary
  w.noise = size_noise(size);
  return w;
}

}  // namespace

Segmentation segment(std::span<const SizeFigures> sizes) {
  std::vector<std::size_t> confirmed;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i].confirmed) confirmed.push_back(i);
  if (confirmed.empty() || confirmed.size() == sizes.size()) return segment_all(sizes);
  std::vector<SizeFigures> deciding;
  for (std::size_t i : confirmed) deciding.push_back(sizes[i]);
  Segmentation decided = segment_all(deciding);
  Segmentation out{.switch_price = decided.switch_price};
  out.picks.resize(sizes.size());
  for (std::size_t k = 0; k < confirmed.size(); ++k)
    out.picks[confirmed[k]] = std::move(decided.picks[k]);
  // Each run of sizes between confirmed ones (or beyond the outermost).
  for (std::size_t start = 0; start < sizes.size();) {
    if (sizes[start].confirmed) {
      ++start;
      continue;
    }
    std::size_t end = start;
    while (end < sizes.size() && !sizes[end].confirmed) ++end;
    const Winner* lower = start > 0 ? &out.picks[start - 1] : nullptr;
    const Winner* upper = end < sizes.size() ? &out.picks[end] : nullptr;
    const std::span<const SizeFigures> run = sizes.subspan(start, end - start);
    std::size_t first_upper = run.size();
    if (lower == nullptr)
      first_upper = 0;
    else if (upper != nullptr && upper->choice != lower->choice)
      first_upper = boundary_in(run, *lower, *upper);
    for (std::size_t i = 0; i < run.size(); ++i)
      out.picks[start + i] = between_pick(run[i], i < first_upper ? *lower : *upper);
    start = end;
  }
  return out;
}

}  // namespace cct::tuner
