#include "tuner/search.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <numeric>
#include <optional>
#include <vector>

#include "cct/collectives.hpp"
#include "cct/sdk/datatype.hpp"
#include "tuner/pattern_figures.hpp"
#include "tuner/winners.hpp"

namespace cct::tuner {
namespace {

// Halving never prunes a candidate this close to the round's fastest: the
// same tolerance as the winners' hysteresis, below which figures are noise.
constexpr double kNearFastest = 0.05;

struct Figure {
  const Point* point;
  PointResult result;
};

// Figures of candidates, [candidate][count pattern].
using ByPattern = std::vector<std::vector<PointResult>>;

// The library's own call (the `mpi` algorithm) is never pruned: screening
// figures of a few repetitions are noise at sub-microsecond times, and only
// a finalist measured beside it, interleaved, may take its place.
bool is_library(const Point& p) {
  return (p.algorithm->desc->required_caps & CCT_CAP_LIBRARY) != 0;
}

// The search of one collective; see search.hpp for the steps.
class CollectiveSearch {
 public:
  CollectiveSearch(std::span<const Point> points, const std::map<std::string, ResultRow>& known,
                   const SearchOptions& opts, PointMeasurer& measurer)
      : points_(points), known_(known), opts_(opts), measurer_(measurer) {
    for (const Point& p : points_) grid_.push_back(p.call.bytes);
    reduction_ = !points_.empty() && collective_info(points_.front().call.collective).reduction;
    rooted_ = !points_.empty() && collective_info(points_.front().call.collective).rooted;
    std::sort(grid_.begin(), grid_.end());
    grid_.erase(std::unique(grid_.begin(), grid_.end()), grid_.end());
  }

  void run() {
    const Point* previous = nullptr;
    for (int64_t bytes : grid_) previous = search_size(bytes, previous);
    for (std::size_t i = 0; i + 1 < grid_.size(); ++i) bisect(grid_[i], grid_[i + 1], 1);
    if (opts_.check_every > 0)
      for (std::size_t i = opts_.check_every - 1; i + 1 < grid_.size(); i += opts_.check_every)
        check_between(grid_[i], grid_[i + 1]);
    if (reduction_)
      for (int64_t bytes : grid_) measure_types(bytes);
    if (rooted_ && opts_.other_root)
      for (int64_t bytes : grid_) measure_roots(bytes);
  }

 private:
  const ResultRow* known(const Point& p) const {
    const auto it = known_.find(p.row({}).key());
    return it == known_.end() ? nullptr : &it->second;
  }

  // The winner among figures (not empty), keeping `previous` when close.
  static const Point* winner(const std::vector<Figure>& figures, const Point* previous) {
    std::vector<Contender> contenders;
    for (const Figure& f : figures)
      contenders.push_back(
          {.median_s = f.result.median_s,
           .min_s = f.result.min_s,
           .algorithm = f.point->algorithm->desc->name,
           .library = is_library(*f.point),
           .previous = previous && f.point->same_candidate(*previous),
           .default_params = f.point->params == f.point->algorithm->default_params()});
    return figures[choose_winner(contenders)].point;
  }

  // Steps 1 and 2 at one grid size; returns its winner (null if none).
  const Point* search_size(int64_t bytes, const Point* previous) {
    std::vector<const Point*> candidates;
    bool resumed = false;
    for (const Point& p : points_)
      if (p.call.bytes == bytes) {
        candidates.push_back(&p);
        resumed = resumed || known(p) != nullptr;
      }
    std::vector<Figure>& finals = finals_[bytes];
    if (!resumed && !opts_.exhaustive) candidates = halve(std::move(candidates), previous);
    // Finalists in the space's order, as a resumed run lists them: ties
    // between figures then resolve alike, and so do the checks' contenders.
    std::sort(candidates.begin(), candidates.end());
    // The finalists not measured before are timed together, interleaved:
    // figures of calls run back to back favour some algorithms over what
    // programs see (ccbench --check).
    std::vector<const Point*> fresh;
    for (const Point* p : candidates)
      if (known(*p) == nullptr) fresh.push_back(p);
    std::vector<PointResult> measured;
    if (!fresh.empty()) measured = measurer_.measure_together(fresh, Stage::kFinal);
    for (std::size_t next = 0; const Point* p : candidates) {
      const ResultRow* row = known(*p);
      if (row == nullptr)
        finals.push_back({p, measured[next++]});
      else if (row->stage != Stage::kPruned)
        finals.push_back({p, row->result});
    }
    if (finals.empty()) return previous;
    winners_[bytes] = winner(finals, previous);
    if (opts_.confirm) winners_[bytes] = confirm_size(bytes, previous);
    return winners_[bytes];
  }

  // The figure of candidate c among those measured at bytes, else 0.
  double figure_of(const Point& c, int64_t bytes) {
    for (const Figure& f : finals_[bytes])
      if (f.point->same_candidate(c)) return f.result.median_s;
    return 0;
  }

  // Step 3 at a grid size whose finals are measured; returns its winner.
  const Point* confirm_size(int64_t bytes, const Point* previous) {
    const std::vector<Figure>& finals = finals_[bytes];
    const Point* first = winners_[bytes];
    const Figure* runner_up = nullptr;
    for (const Figure& f : finals)
      if (!f.point->same_candidate(*first) &&
          (runner_up == nullptr || f.result.median_s < runner_up->result.median_s))
        runner_up = &f;
    std::vector<const Point*> points{first};
    const auto add = [&](const Point* p) {
      if (std::none_of(points.begin(), points.end(),
                       [&](const Point* q) { return q->same_candidate(*p); }))
        points.push_back(p);
    };
    if (runner_up) add(runner_up->point);
    for (const Figure& f : finals)
      if (is_library(*f.point) || (previous && f.point->same_candidate(*previous))) add(f.point);
    if (points.size() < 2) return first;
    ByPattern confirmed = confirmations(points, bytes, Stage::kConfirm);
    if (opts_.reconfirm) {
      // The slower of the two jobs' figures decides (winners.cpp does the same).
      const ByPattern again = confirmations(points, bytes, Stage::kReconfirm);
      for (std::size_t i = 0; i < confirmed.size(); ++i)
        for (std::size_t p = 0; p < confirmed[i].size(); ++p)
          if (again[i][p].median_s > confirmed[i][p].median_s) confirmed[i][p] = again[i][p];
    }
    std::optional<std::size_t> library;
    for (std::size_t i = 0; i < points.size(); ++i)
      if (is_library(*points[i])) library = i;
    const std::vector<PointResult> worst = worst_pattern_figures(confirmed, library);
    std::vector<Figure> figures;
    for (std::size_t i = 0; i < points.size(); ++i) figures.push_back({points[i], worst[i]});
    return winner(figures, previous);
  }

  // The figures of points at bytes timed as programs call them in this
  // stage (confirm, or reconfirm in a second job), in the order of points;
  // a vector collective's in each count pattern apart (pattern_figures.hpp).
  ByPattern confirmations(const std::vector<const Point*>& points, int64_t bytes, Stage stage) {
    const std::vector<Call> calls = each_pattern(points.front()->call);
    ByPattern figures(points.size());
    for (const Call& call : calls) {
      std::vector<const Point*> alone;
      std::vector<double> expected;
      for (const Point* p : points) {
        Point& q = extra_.emplace_back(*p);
        q.call = call;
        alone.push_back(&q);
        expected.push_back(figure_of(*p, bytes) / static_cast<double>(calls.size()));
      }
      const std::vector<PointResult> results = as_programs(alone, expected, stage);
      for (std::size_t i = 0; i < points.size(); ++i) figures[i].push_back(results[i]);
    }
    return figures;
  }

  // The figures of points timed as programs call them, with this stage's
  // rows (expected_s: an earlier figure of each, which sizes its blocks),
  // in their order. What an earlier run or this one timed so is not timed
  // again.
  std::vector<PointResult> as_programs(const std::vector<const Point*>& points,
                                       const std::vector<double>& expected_s, Stage stage) {
    std::vector<PointResult> results(points.size());
    std::vector<std::size_t> fresh_at;
    std::vector<const Point*> fresh;
    std::vector<double> expected;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const std::string key = points[i]->row({}, stage).key();
      if (const auto it = known_.find(key); it != known_.end()) {
        results[i] = it->second.result;
      } else if (const auto e = extra_results_.find(key); e != extra_results_.end()) {
        results[i] = e->second;
      } else {
        fresh_at.push_back(i);
        fresh.push_back(points[i]);
        expected.push_back(expected_s[i]);
      }
    }
    if (fresh.empty()) return results;
    measurer_.planned(fresh.size());
    const std::vector<PointResult> measured = measurer_.confirm(fresh, expected, stage);
    for (std::size_t i = 0; i < fresh.size(); ++i)
      results[fresh_at[i]] = extra_results_[fresh[i]->row({}, stage).key()] = measured[i];
    return results;
  }

  // Successive halving of candidates down to the finalists.
  std::vector<const Point*> halve(std::vector<const Point*> pool, const Point* previous) {
    for (int reps = opts_.first_round_reps; pool.size() > opts_.finalists; reps *= 2) {
      std::vector<PointResult> round;
      for (const Point* p : pool) round.push_back(measurer_.screen(*p, reps));
      std::vector<std::size_t> order(pool.size());
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return round[a].median_s < round[b].median_s;
      });
      const std::size_t keep = std::max(opts_.finalists, (pool.size() + 1) / 2);
      const double near = round[order[0]].median_s * (1 + kNearFastest);
      std::vector<const Point*> next;
      for (std::size_t rank = 0; rank < order.size(); ++rank) {
        const std::size_t i = order[rank];
        if (rank < keep || round[i].median_s <= near || is_library(*pool[i]) ||
            (previous && pool[i]->same_candidate(*previous)))
          next.push_back(pool[i]);
        else
          measurer_.pruned(*pool[i], round[i]);
      }
      if (next.size() == pool.size()) break;
      pool = std::move(next);
    }
    return pool;
  }

  // An off-grid size of a reduction rounded down to whole int32s (from 4
  // bytes up), so that it is measured in int32 as its grid neighbours are:
  // an odd size would be measured in uint8 (measure.hpp), and its figure
  // would differ from theirs for that reason alone.
  int64_t whole_elements(int64_t size) const {
    const auto whole = static_cast<int64_t>(sdk::dtype_size(kReferenceType));
    return reduction_ && size >= whole ? size - size % whole : size;
  }

  // A crossover or check point: measured unless an earlier run or this one
  // did (a check can fall on a crossover's size).
  PointResult measure_extra(const Point& p, Stage stage) {
    if (const ResultRow* row = known(p)) return row->result;
    const std::string key = p.row({}).key();
    if (const auto it = extra_results_.find(key); it != extra_results_.end()) return it->second;
    measurer_.planned(1);
    return extra_results_[key] = measurer_.measure(p, stage);
  }

  // The figures of a crossover's two candidates: timed as programs call
  // them where sizes are confirmed (expected_a, expected_b: their figures
  // at the neighbouring sizes), else each fully.
  std::vector<Figure> crossover_figures(const Point* pa, const Point* pb, double expected_a,
                                        double expected_b) {
    if (!opts_.confirm)
      return {{pa, measure_extra(*pa, Stage::kCrossover)},
              {pb, measure_extra(*pb, Stage::kCrossover)}};
    const std::vector<PointResult> r =
        as_programs({pa, pb}, {expected_a, expected_b}, Stage::kCrossover);
    return {{pa, r[0]}, {pb, r[1]}};
  }

  // The point of candidate c at bytes, kept alive here; null if it cannot run.
  const Point* extra_point(const Point& c, int64_t bytes) {
    Point p = c.at(bytes);
    if (!measurer_.why_unusable(p).empty()) return nullptr;
    return &extra_.emplace_back(std::move(p));
  }

  // Step 4 between two measured sizes; depth counts from 1.
  void bisect(int64_t lo, int64_t hi, int depth) {
    if (depth > opts_.bisect_depth || !winners_.contains(lo) || !winners_.contains(hi)) return;
    const Point* a = winners_[lo];
    const Point* b = winners_[hi];
    const int64_t mid =
        whole_elements(static_cast<int64_t>(std::llround(std::sqrt(double(lo) * double(hi)))));
    if (a->same_candidate(*b) || mid <= lo || mid >= hi) return;
    const Point* pa = extra_point(*a, mid);
    const Point* pb = extra_point(*b, mid);
    if (pa == nullptr || pb == nullptr) return;
    std::vector<Figure>& figures = finals_[mid];
    figures = crossover_figures(pa, pb, figure_of(*a, lo), figure_of(*b, hi));
    winners_[mid] = winner(figures, a);
    if (winners_[mid]->same_candidate(*a))
      bisect(mid, hi, depth + 1);
    else
      bisect(lo, mid, depth + 1);
  }

  // The candidates worth checking near size: its winner and its `fastest`
  // finalists.
  void add_contenders(int64_t size, std::size_t fastest, std::vector<const Point*>& out) {
    std::vector<Figure> figures = finals_[size];
    std::stable_sort(figures.begin(), figures.end(), [](const Figure& x, const Figure& y) {
      return x.result.median_s < y.result.median_s;
    });
    if (figures.size() > fastest) figures.resize(fastest);
    if (winners_.contains(size)) figures.push_back({winners_[size], {}});
    for (const Figure& f : figures)
      if (std::none_of(out.begin(), out.end(),
                       [&](const Point* p) { return p->same_candidate(*f.point); }))
        out.push_back(f.point);
  }

  // Step 5 halfway between two grid sizes. The profile's choice there, the
  // winner of the largest measured size below (a crossover's, if any), is
  // among the contenders: crossovers only ever measure the neighbours'
  // winners.
  void check_between(int64_t lo, int64_t hi) {
    const int64_t size = whole_elements(lo + (hi - lo) / 2);
    if (size <= lo || size >= hi) return;
    std::vector<const Point*> contenders;
    add_contenders(lo, opts_.finalists, contenders);
    add_contenders(hi, opts_.finalists, contenders);
    // Where sizes are confirmed, the checks are timed the same way, so that
    // the accuracy compares the profile with figures of the kind that chose
    // it: in the second job again, each candidate weighed by its slower job.
    // Timed in one job only, the checks drew one of the machine's latency
    // levels, between which the project's algorithms move by more than the
    // library's call (2-core VM, 16 KiB: 2.7-4x against 1.1-1.4x).
    std::vector<const Point*> points;
    std::vector<double> expected;
    for (const Point* c : contenders)
      if (const Point* p = extra_point(*c, size)) {
        points.push_back(p);
        expected.push_back(std::max(figure_of(*c, lo), figure_of(*c, hi)));
      }
    if (opts_.confirm) {
      as_programs(points, expected, Stage::kCheck);
      if (opts_.reconfirm) as_programs(points, expected, Stage::kRecheck);
      return;
    }
    for (const Point* p : points) measure_extra(*p, Stage::kCheck);
  }

  // Steps 6 and 7 at a grid size: its winner and two fastest finalists in
  // each of `variants` of its call (the reference first), all timed
  // together (one interleaved measurement, so that the variants are
  // weighed against figures taken in the same moments) as rows of `stage`.
  // The two fastest (and the winner): a variant's own winner among the
  // others would be rare, and each candidate costs a full timing in every
  // variant. A row measured before (--resume) is not measured again.
  void measure_variants(int64_t bytes, const std::vector<Call>& variants, Stage stage) {
    std::vector<const Point*> contenders;
    add_contenders(bytes, 2, contenders);
    std::vector<const Point*> fresh;
    for (const Call& call : variants)
      for (const Point* c : contenders) {
        Point p = *c;
        p.call = call;
        if (known(p) != nullptr || !measurer_.why_unusable(p).empty()) continue;
        fresh.push_back(&extra_.emplace_back(std::move(p)));
      }
    if (fresh.empty()) return;
    measurer_.planned(fresh.size());
    measurer_.measure_together(fresh, stage);
  }

  // The call of the space's points at a grid size.
  const Call& call_at(int64_t bytes) const {
    return std::ranges::find(points_, bytes, [](const Point& p) { return p.call.bytes; })->call;
  }

  // Step 6 at a grid size: in int32, the reference, and in each type of the
  // options that the size holds whole. Nothing where no type fits.
  void measure_types(int64_t bytes) {
    std::vector<Call> variants;
    for (cct_datatype type : opts_.datatypes)
      if (bytes % static_cast<int64_t>(sdk::dtype_size(type)) == 0)
        variants.emplace_back(call_at(bytes)).dtype = type;
    if (variants.empty()) return;
    variants.emplace(variants.begin(), call_at(bytes))->dtype = kReferenceType;
    measure_variants(bytes, variants, Stage::kTyped);
  }

  // Step 7 at a grid size: at root 0, the reference, and at the last rank.
  void measure_roots(int64_t bytes) {
    const int last = points_.front().np - 1;
    if (last == 0) return;
    std::vector<Call> variants(2, call_at(bytes));
    variants[0].root = 0;
    variants[1].root = last;
    measure_variants(bytes, variants, Stage::kRooted);
  }

  std::span<const Point> points_;
  const std::map<std::string, ResultRow>& known_;
  const SearchOptions& opts_;
  PointMeasurer& measurer_;
  bool reduction_ = false;                         // combines with an op: element types matter
  bool rooted_ = false;                            // has a root: roots may matter
  std::vector<int64_t> grid_;                      // the space's sizes, ascending
  std::map<int64_t, std::vector<Figure>> finals_;  // full figures per measured size
  std::map<int64_t, const Point*> winners_;        // per measured size
  std::deque<Point> extra_;  // not in the space: crossovers, checks, patterns alone
  std::map<std::string, PointResult> extra_results_;  // timed in this run, by row key
};

}  // namespace

void search_collective(std::span<const Point> points, const std::map<std::string, ResultRow>& known,
                       const SearchOptions& opts, PointMeasurer& measurer) {
  CollectiveSearch(points, known, opts, measurer).run();
}

}  // namespace cct::tuner
