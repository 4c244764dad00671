#include "tuner/job.hpp"

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <iterator>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "calls.hpp"
#include "cct/runtime.hpp"
#include "cct/simulate.hpp"
#include "cct/units.hpp"
#include "interposed_call.hpp"
#include "tuner/cluster.hpp"
#include "tuner/default_sizes.hpp"
#include "tuner/device_runtime.hpp"
#include "tuner/job_progress.hpp"
#include "tuner/progress.hpp"
#include "tuner/search.hpp"
#include "tuner/shape_text.hpp"

namespace cct::tuner {
namespace {

std::string label(const Point& p, const char* stage) {
  const ResultRow row = p.row({});
  return row.collective + " " + row.transport + " " + shape_text(p.nodes, p.np) + " " +
         format_bytes(p.call.bytes) + " " + row.choice() + " (" + stage + ")";
}

// What cannot run here: one line naming them (--verbose: one per
// algorithm, with its reason). Every single-node run skips the multinode and
// switch-assisted algorithms; saying why each time is noise.
void report_skips(const Space& space, int np, bool verbose) {
  if (space.skipped.empty()) return;
  if (verbose) {
    for (const Skip& s : space.skipped)
      std::cout << "skip " << s.collective << "/" << s.algorithm << " at np=" << np << " ("
                << s.points << " points): " << s.reason << "\n";
    return;
  }
  std::cout << "skip at np=" << np << ", cannot run here (--verbose says why):";
  for (const Skip& s : space.skipped) std::cout << " " << s.collective << "/" << s.algorithm;
  std::cout << "\n";
}

// The collectives whose sizes stop short of --max-bytes at this np, with
// why: one line.
void report_size_limits(const Space& space, int np, int64_t max_rank_bytes) {
  if (space.limited.empty()) return;
  std::cout << "ccautotune: np=" << np << ":";
  for (const SizeLimit& l : space.limited)
    std::cout << (&l == &space.limited.front() ? " " : ", ") << l.collective << " up to "
              << format_bytes(l.largest);
  std::cout << ": a larger call would take more than --max-rank-bytes "
            << format_bytes(max_rank_bytes) << " of a rank's memory for its buffers\n";
}

// Whether progress may rewrite one line in place. Under mpirun stdout is a
// pseudo-terminal whatever mpirun's own output is (Open MPI issue 7868), so
// a log of `tools/tune.sh > log` would fill with status lines: plain lines.
bool on_terminal() {
  return isatty(STDOUT_FILENO) && !started_by_mpirun();
}

// What rank 0 alone does: report the skips, write the rows, show progress.
class Reporter {
 public:
  Reporter(const Space& space, std::size_t todo, const Options& opts, int np)
      : writer_(opts.results), progress_(std::cout, todo, on_terminal()), verbose_(opts.verbose) {
    report_skips(space, np, opts.verbose);
    report_size_limits(space, np, opts.filter.max_rank_bytes);
  }
  ~Reporter() { progress_.close(); }
  void start(const Point& p, const char* stage) { progress_.start(label(p, stage)); }
  void add(std::size_t points) { progress_.add(points); }
  void finish(const Point& p, const PointResult& result, Stage stage) {
    writer_.append(p.row(result, stage));
    progress_.finish_one();
    if (verbose_)
      std::cout << "  " << label(p, stage_name(stage)) << ": median "
                << format_micros(result.median_s) << " us, min " << format_micros(result.min_s)
                << ", max " << format_micros(result.max_s) << ", " << result.reps << " reps\n";
  }

 private:
  ResultsWriter writer_;
  Progress progress_;
  bool verbose_;
};

// Thrown on every rank at the same point (their figures are the same) once
// the job's measured time passes --time-budget.
struct BudgetSpent {};

// How the confirmation times its blocks (search.hpp, step 3).
constexpr ProgramStyle kProgramStyle{};

// The search's access to one job: plans prepared once per candidate and kept
// for the collective, the shared buffers, the budget, and (rank 0) the rows.
class JobMeasurer final : public PointMeasurer {
 public:
  JobMeasurer(const Registry& registry, Measurer& measurer, const Communicator& comm,
              const Communicator* staging, const Options& opts, Reporter* reporter,
              JobProgress* progress)
      : registry_(registry),
        measurer_(measurer),
        comm_(comm),
        staging_(staging),
        opts_(opts),
        reporter_(reporter),
        progress_(progress),
        running_(progress ? progress->running(comm.rank()) : nullptr) {
    if (running_) running_->pid = getpid();
    measurer_.note_running_in(running_);
  }

  PointResult screen(const Point& p, int reps) override {
    MeasureOptions limits = opts_.measure;
    limits.warmup = 1;
    // A simulated platform repeats itself exactly: one repetition is the
    // figure, and screening with more would only repeat it.
    limits.min_reps = limits.max_reps = std::min(reps, opts_.measure.max_reps);
    if (reporter_)
      reporter_->start(p, ("screen " + std::to_string(limits.min_reps) + " reps").c_str());
    note_point(p);
    return timed(p, limits);
  }
  PointResult measure(const Point& p, Stage stage) override {
    if (reporter_) reporter_->start(p, stage_name(stage));
    note_point(p);
    const PointResult result = timed(p, opts_.measure);
    if (reporter_) reporter_->finish(p, result, stage);
    return result;
  }
  std::vector<PointResult> measure_together(std::span<const Point* const> points,
                                            Stage stage) override {
    return together(
        points, stage, [&](const Point& p) { return &plan_for(p); },
        [&](std::span<Plan* const> plans) {
          std::vector<Call> calls;
          for (const Point* p : points) calls.push_back(p->call);
          return measurer_.measure_together(plans, calls, limits_for(calls));
        });
  }
  // A comparison of variants of a call (element types or roots, search.hpp,
  // steps 6 and 7) shares each candidate's budget among its variants:
  // timed interleaved, fewer repetitions tell them apart, and at the
  // largest sizes the budget is what bounds a point (without the share,
  // the types' step took longer than the full timings of all sizes). The
  // finalists of one call share nothing.
  MeasureOptions limits_for(std::span<const Call> calls) const {
    MeasureOptions limits = opts_.measure;
    std::set<std::pair<cct_datatype, std::optional<int>>> variants;
    for (const Call& c : calls) variants.insert({c.dtype, c.root});
    limits.budget_s /= static_cast<double>(variants.size());
    return limits;
  }
  std::vector<PointResult> confirm(std::span<const Point* const> points,
                                   std::span<const double> expected_s, Stage stage) override {
    return together(
        points, stage, [&](const Point& p) { return runner_for(p); },
        [&](std::span<const CallRunner> runners) {
          return measurer_.measure_as_programs(runners, points.front()->call, expected_s,
                                               kProgramStyle);
        });
  }
  void pruned(const Point& p, const PointResult& last) override {
    if (reporter_) reporter_->finish(p, last, Stage::kPruned);
  }
  std::string why_unusable(const Point& p) override { return why_unusable_here(p, comm_of(p)); }
  void planned(std::size_t points) override {
    if (reporter_) reporter_->add(points);
  }
  // Destroys (collectively) the plans of the collective just searched.
  void forget_plans() {
    runtimes_.clear();
    plans_.clear();
  }

 private:
  // Rank 0 names the points about to run, for the launcher to name the
  // culprit if the job dies (job_progress.hpp).
  void note_points(std::span<const Point* const> points) {
    if (!progress_ || comm_.rank() != 0) return;
    std::vector<std::string> keys;
    for (const Point* p : points) keys.push_back(p->row({}).key());
    progress_->start(keys);
  }
  // Candidates of one call timed together: the budget, the notes of what
  // runs, the rows. prepare(p) readies a candidate (a crash there is its
  // own), time(prepared) times them all.
  template <class Prepare, class Time>
  std::vector<PointResult> together(std::span<const Point* const> points, Stage stage,
                                    Prepare prepare, Time time) {
    if (reporter_) reporter_->start(*points.front(), stage_name(stage));
    if (opts_.time_budget_s > 0 && measured_s_ > opts_.time_budget_s) throw BudgetSpent{};
    note_points(points);
    std::vector<decltype(prepare(*points.front()))> prepared;
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (running_) running_->start(i);
      prepared.push_back(prepare(*points[i]));
    }
    const std::vector<PointResult> results = time(prepared);
    for (std::size_t i = 0; i < points.size(); ++i) {
      measured_s_ += results[i].median_s * results[i].reps;
      if (reporter_) reporter_->finish(*points[i], results[i], stage);
    }
    return results;
  }
  void note_point(const Point& p) {
    const Point* one[] = {&p};
    note_points(one);
  }

  PointResult timed(const Point& p, const MeasureOptions& limits) {
    if (opts_.time_budget_s > 0 && measured_s_ > opts_.time_budget_s) throw BudgetSpent{};
    const PointResult result = measurer_.measure(plan_for(p), p.call, limits);
    measured_s_ += result.median_s * result.reps;
    return result;
  }
  // A staged point's plan runs on the host transport under the device one.
  const Communicator& comm_of(const Point& p) const { return p.staged ? *staging_ : comm_; }
  Plan& plan_for(const Point& p) {
    std::unique_ptr<Plan>& plan = plans_[{p.algorithm->desc->name, p.params}];
    if (!plan) plan = std::make_unique<Plan>(*p.algorithm, comm_of(p), p.params);
    return *plan;
  }

  // A confirmation runs the library's call as its plan (the interposer
  // hands a kept call over as it was made) and an algorithm through a
  // runtime whose only rule is that algorithm for every size, so that its
  // figure pays what a program's call pays to reach it: under MPI, the
  // interposer's path (interposed_call.hpp); else the runtime's dispatch,
  // as a program linking the runtime calls it (and wherever the
  // interposer would leave the call to the library).
  CallRunner runner_for(const Point& p) {
    if (staging_ != nullptr) return device_runner_for(p);
    if (p.algorithm->desc->required_caps & CCT_CAP_LIBRARY) {
      Plan& plan = plan_for(p);
      return [&plan](const cct_coll_args& args) { plan.run(args); };
    }
    std::unique_ptr<Runtime>& rt = runtimes_[{p.algorithm->desc->name, p.params}];
    if (!rt) rt = interposer::runtime_of(registry_, comm_, *p.algorithm, p.params);
    Runtime& runtime = *rt;
    if (!(comm_.capabilities() & CCT_CAP_LIBRARY))
      return [&runtime](const cct_coll_args& args) { runtime.run(args); };
    return [&runtime](const cct_coll_args& args) {
      if (const char* left = interposer::interposed(runtime, args);
          left != nullptr && left != interposer::kMovesNothing)
        runtime.run(args);
    };
  }

  // On a device transport: a runtime whose device rules name only p, so
  // that every call pays what a program's call on device buffers pays.
  CallRunner device_runner_for(const Point& p) {
    std::unique_ptr<Runtime>& rt = runtimes_[{p.algorithm->desc->name, p.params}];
    if (!rt) rt = device_runtime(registry_, *staging_, comm_, p.algorithm, p.params);
    Runtime& runtime = *rt;
    return [&runtime](const cct_coll_args& args) { runtime.run(args); };
  }

  const Registry& registry_;
  Measurer& measurer_;
  const Communicator& comm_;
  const Communicator* staging_;  // the host communicator of staged points, or null
  const Options& opts_;
  Reporter* reporter_;
  JobProgress* progress_;
  RunningCandidate* running_;
  // Ordered, so every rank destroys them in the same (collective) order.
  std::map<std::pair<std::string, std::vector<int64_t>>, std::unique_ptr<Plan>> plans_;
  std::map<std::pair<std::string, std::vector<int64_t>>, std::unique_ptr<Runtime>> runtimes_;
  double measured_s_ = 0;
};

// Rank 0 says what the shortlist left out (removed points of space, and
// the variants not timed again).
void report_shortlist(const Shortlist& shortlist, const std::map<Dropped, std::size_t>& removed,
                      const Space& space, const Communicator& comm) {
  if (comm.rank() != 0) return;
  std::size_t total = space.points.size();
  for (const auto& [why, count] : removed) total += count;
  if (!removed.empty())
    std::cout << "ccautotune: " << shape_text(shortlist.nodes, shortlist.np) << ": "
              << describe_removed(shortlist, removed, total) << " (--exhaustive measures them)"
              << std::endl;
  if (shortlist.confirming)
    std::cout << "ccautotune: " << shape_text(shortlist.nodes, shortlist.np) << ": "
              << describe_confirming(shortlist) << " ("
              << (shortlist.nodes == 1
                      ? "--np " + std::to_string(shortlist.np)
                      : "--ranks-per-node " + std::to_string(shortlist.np / shortlist.nodes))
              << " measures it whole)" << std::endl;
  else if (!shortlist.unvaried.empty())
    std::cout << "ccautotune: " << shape_text(shortlist.nodes, shortlist.np) << ": "
              << describe_unvaried(shortlist) << " (--exhaustive times them)" << std::endl;
}

// The job's search of collective c: without the variants the shortlist
// does not time again; a confirming job's without crossovers and checks.
SearchOptions search_of(cct_collective c, SearchOptions search, const Shortlist* shortlist) {
  if (shortlist && !shortlist->times_variants(c, Variation::kElementType)) search.datatypes.clear();
  if (shortlist && !shortlist->times_variants(c, Variation::kRoot)) search.other_root = false;
  if (shortlist && shortlist->confirming) search.bisect_depth = search.check_every = 0;
  return search;
}

std::size_t unfinished(const Space& space, const std::map<std::string, ResultRow>& known) {
  return std::count_if(space.points.begin(), space.points.end(),
                       [&](const Point& p) { return !known.contains(p.row({}).key()); });
}

}  // namespace

// The space lists the points of a collective in one run.
void measure_space(const Registry& registry, Communicator& comm, const Space& all,
                   const Options& opts, const std::map<std::string, ResultRow>& known,
                   JobProgress* progress, const Communicator* staging, const Shortlist* shortlist) {
  // A candidate that failed in this shape is not measured there again.
  Space space = all;
  const std::set<std::string> failed = failed_candidates(known);
  std::erase_if(space.points,
                [&](const Point& p) { return failed.contains(p.row({}).candidate()); });
  if (shortlist) report_shortlist(*shortlist, apply_shortlist(*shortlist, space), space, comm);
  std::optional<Reporter> reporter;
  if (comm.rank() == 0) reporter.emplace(space, unfinished(space, known), opts, comm.size());
  std::vector<Call> calls;
  for (const Point& p : space.points) calls.push_back(p.call);
  Measurer measurer(registry, comm, calls, opts.measure);
  JobMeasurer job(registry, measurer, comm, staging, opts, reporter ? &*reporter : nullptr,
                  progress);
  SearchOptions search = opts.search;
  // On a simulated platform a figure is the platform's exact virtual
  // time: nothing to confirm.
  search.confirm = !virtual_now(comm.transport());
  // Nor to screen: one repetition is exact, so a screening round would
  // only repeat the final figure (and cost more than it).
  search.exhaustive = opts.search.exhaustive || !search.confirm;
  search.reconfirm = search.confirm && opts.search.reconfirm;
  std::span<const Point> rest(space.points);
  try {
    while (!rest.empty()) {
      const auto end = std::find_if(rest.begin(), rest.end(), [&](const Point& p) {
        return p.call.collective != rest.front().call.collective;
      });
      search_collective(rest.first(end - rest.begin()), known,
                        search_of(rest.front().call.collective, search, shortlist), job);
      job.forget_plans();
      rest = rest.subspan(end - rest.begin());
    }
  } catch (const BudgetSpent&) {
    if (reporter)
      std::cout << "ccautotune: time budget spent at np=" << comm.size()
                << "; run again with --resume to measure the rest\n";
  }
}

std::vector<ConfirmedShape> confirmed_for(const Options& opts, int nodes,
                                          const std::vector<int>& measured,
                                          const std::vector<int>& predicted) {
  if (!opts.shortlists()) return {};
  std::vector<ConfirmedShape> shapes;
  for (int per_node : confirmed_sizes(measured, predicted))
    shapes.push_back({nodes, nodes * per_node});
  return shapes;
}

std::optional<Shortlist> shortlist_for(const Registry& registry, const Options& opts,
                                       const std::vector<ResultRow>& rows, const ShapeOf& shape,
                                       const TransportEntry& transport, int nodes, int np) {
  if (!opts.shortlists()) return std::nullopt;
  // A confirming job's rows, a few candidates of a size run last, are no
  // other job's footing: with them, a size measured after it in a second
  // job or a resumed run would be shortlisted from them.
  std::vector<ResultRow> measured;
  std::ranges::copy_if(rows, std::back_inserter(measured),
                       [&](const ResultRow& r) { return !opts.confirms(r.nodes, r.np); });
  return make_shortlist(measured, registry, shape, transport.desc->name, nodes, np, opts.shortlist,
                        opts.measure, opts.filter, opts.confirms(nodes, np));
}

std::optional<Shortlist> kept_or_made(const Registry& registry, const Options& opts,
                                      const std::vector<ResultRow>& rows, const ShapeOf& shape,
                                      const TransportEntry& transport, int nodes, int np,
                                      const KeptShortlists& kept, bool* was_kept) {
  std::optional<Shortlist> made = shortlist_for(registry, opts, rows, shape, transport, nodes, np);
  if (!made || made->from_np == 0) return made;  // drops nothing: made alike every time
  // Another --shortlist, or a size confirmed where it was measured before.
  if (std::optional<Shortlist> earlier = kept.find({transport.desc->name, nodes, np});
      earlier && earlier->keep == made->keep && earlier->confirming == made->confirming) {
    if (was_kept) *was_kept = true;
    return earlier;
  }
  return made;
}

std::optional<Shortlist> job_shortlist(const Registry& registry, const Options& opts,
                                       const std::vector<ResultRow>& rows, const ShapeOf& shape,
                                       const TransportEntry& transport, int nodes, int np,
                                       KeptShortlists& kept) {
  const std::string name = transport.desc->name;
  bool was_kept = false;
  std::optional<Shortlist> shortlist =
      kept_or_made(registry, opts, rows, shape, transport, nodes, np, kept, &was_kept);
  if (was_kept)
    std::cout << "ccautotune: " << name << " " << shape_text(nodes, np)
              << ": the shortlist of its first job, kept in " << kept_shortlists_path(opts.results)
              << std::endl;
  else if (shortlist && shortlist->from_np != 0)
    kept.keep(name, *shortlist);
  return shortlist;
}

bool record_failure(const JobProgress& progress, const std::string& why, const Options& opts,
                    std::map<std::string, ResultRow>& known) {
  const std::string culprit = progress.culprit();
  if (culprit.empty() || known.contains(culprit)) return false;
  const ResultRow row = failed_row(culprit, why);
  ResultsWriter(opts.results).append(row);
  known[culprit] = row;
  std::cerr << "ccautotune: " << row.choice() << " failed at " << row.collective << " "
            << row.transport << " " << shape_text(row.nodes, row.np) << " "
            << cct::format_bytes(row.bytes) << " (" << why << "); left out at "
            << shape_text(row.nodes, row.np) << ", tuning goes on without it\n";
  return true;
}

}  // namespace cct::tuner
