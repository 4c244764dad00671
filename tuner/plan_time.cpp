#include "tuner/plan_time.hpp"

#include <algorithm>
#include <iostream>
#include <sstream>

#include "cct/error.hpp"
#include "tuner/job_times_file.hpp"
#include "tuner/kept_file.hpp"
#include "tuner/shape_text.hpp"

namespace cct::tuner {

void JobTimes::keep_in(const std::string& path, int pass) {
  path_ = path;
  pass_ = pass;
  for (const JobRecord& r : read_job_records(path)) {
    if (r.pass != pass) continue;
    Timed& t = jobs_[{r.transport, r.nodes, r.np}];
    t.wall_s += r.wall_s;
    t.timed_s += r.timed_s;
    t.grid_timed_s = r.grid_timed_s;
  }
}

void JobTimes::finished(const JobId& job, double wall_s, const std::vector<ResultRow>& rows,
                        std::size_t first_new) {
  Timed t{.wall_s = wall_s};
  bool measured = false;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ResultRow& row = rows[i];
    if (row.transport != job.transport || row.nodes != job.nodes || row.np != job.np) continue;
    const bool grid = row.stage == Stage::kFinal || row.stage == Stage::kPruned;
    const double timed = row.result.median_s * (row.result.reps + (grid ? warmup_ : 0));
    if (grid) t.grid_timed_s += timed;
    if (i >= first_new && row.stage != Stage::kFailed) {
      measured = true;
      t.timed_s += timed;
    }
  }
  if (!measured) return;
  if (!path_.empty()) record(job, t);
  Timed& timed = jobs_[job];  // an earlier part's, or new
  timed = {.wall_s = timed.wall_s + t.wall_s,
           .grid_timed_s = t.grid_timed_s,
           .timed_s = timed.timed_s + t.timed_s};
}

void JobTimes::record(const JobId& job, const Timed& t) const {
  try {
    append_job_record(path_, {.pass = pass_,
                              .transport = job.transport,
                              .nodes = job.nodes,
                              .np = job.np,
                              .wall_s = t.wall_s,
                              .timed_s = t.timed_s,
                              .grid_timed_s = t.grid_timed_s});
  } catch (const Error& e) {  // costs a resumed run's plan, not this run
    std::cout << "ccautotune: " << e.what() << "; a resumed run will not plan from this job"
              << std::endl;
  }
}

bool JobTimes::timed(const std::string& transport) const {
  return std::any_of(jobs_.begin(), jobs_.end(),
                     [&](const auto& job) { return job.first.transport == transport; });
}

std::optional<double> JobTimes::planned_s(const std::string& transport,
                                          const Shortlist& shortlist) const {
  const auto it = jobs_.find({transport, shortlist.nodes, shortlist.from_np});
  if (it == jobs_.end() || !(it->second.grid_timed_s > 0) || !(it->second.timed_s > 0))
    return std::nullopt;
  const Timed& from = it->second;
  // The first job times a collective's variants, crossovers and checks
  // (search.hpp), the second only reconfirms.
  const double left_out = pass_ == 1 ? shortlist.left_out_timed_s : 0;
  const double calls = std::max(0.0, from.timed_s - left_out) / from.grid_timed_s;
  const double timed_s = shortlist.kept_timed_s * calls;
  const double grown = from.wall_s * timed_s / from.timed_s;
  return simulated_ ? grown * shortlist.np / shortlist.from_np : grown;
}

void keep_job_times(const std::string& results, bool resume,
                    std::initializer_list<JobTimes*> passes, int first_pass) {
  const std::string path = job_times_path(results);
  open_kept_file(
      path, resume, [&] { read_job_records(path); }, "plans go without the jobs it held");
  int pass = first_pass;
  for (JobTimes* times : passes) times->keep_in(path, pass++);
}

TimedJob::TimedJob(JobTimes& times, JobId job, const Shortlist* shortlist, std::size_t rows_before)
    : times_(times),
      job_(std::move(job)),
      rows_before_(rows_before),
      planned_s_(shortlist ? times.planned_s(job_.transport, *shortlist) : std::nullopt),
      start_(std::chrono::steady_clock::now()) {
  if (planned_s_)
    std::cout << "ccautotune: " << describe_plan(job_.transport, *shortlist, *planned_s_)
              << std::endl;
}

void TimedJob::end(const std::vector<ResultRow>& rows) {
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  times_.finished(job_, took, rows, rows_before_);
  std::cout << "ccautotune: " << describe_took(job_, took, planned_s_) << std::endl;
}

namespace {

std::string seconds(double s) {
  std::ostringstream out;
  out.precision(s < 10 ? 2 : 3);
  out << s << " s";
  return out.str();
}

}  // namespace

std::string describe_plan(const std::string& transport, const Shortlist& shortlist,
                          double planned_s) {
  const std::string from = shape_text(shortlist.nodes, shortlist.from_np);
  return transport + " " + shape_text(shortlist.nodes, shortlist.np) + ": planned " +
         seconds(planned_s) + ", from " + from + "'s job and the model's figures of the " +
         std::to_string(shortlist.kept) + " points of " + from + " the shortlist keeps";
}

std::string describe_took(const JobId& job, double took_s, std::optional<double> planned_s) {
  std::string line =
      job.transport + " " + shape_text(job.nodes, job.np) + " took " + seconds(took_s);
  if (planned_s) line += " (planned " + seconds(*planned_s) + ")";
  return line;
}

}  // namespace cct::tuner
