// ccautotune tuner: how long the next jobs of a run will take, said before
// they run and checked after (docs/cost_model.md, "Planned time").
//
// A job measured whole (one of the two smallest sizes) is timed. A later
// job measures its shortlist (shortlist.hpp), whose points carry figures
// the cost model scaled from the job of the size below (from_np). Its
// planned time is the from job's time grown as its calls grow:
//
//   the from job's time x the job's calls / the from job's timed calls
//   the job's calls = the kept points' scaled figures x their warm-up and
//     repetitions there x (the from job's timed calls, less those the
//     shortlist leaves out / those of its grid points)
//
// the calls grown as the model says they grow, the work beside them with
// them: a repetition's alignment, a candidate's plan, warm-up and
// screening rounds go with the candidates timed and their repetitions.
// Measured here (docs/cost_model.md, "Planned time"), where the ranks per
// core stayed alike (np 4 and 5 from 3): shortlisted and confirming jobs
// took 0.94-1.38x their plan so made; carrying the work beside the calls
// over whole, as the plan did before, they took 0.26-0.69x of it. Where the
// ranks per core doubled (np 8 from 4, four a core) a job took 3x its
// plan: that work grows with the ranks per core, which a node with a core
// per rank keeps at one.
// A simulated job's time is the simulation's, which follows the virtual
// time of every rank, one after another on one core: grown again by
// np / from_np.
// Planned per pass: the second job's (reconfirmations, search.hpp) from the
// second job of from_np, its timed calls its own rows'. The calls left
// out (Shortlist::left_out_timed_s: the variants, and a confirming job's
// crossovers and checks) come from the results, so a plan from an earlier
// run's kept job times is the same plan.
#pragma once

#include <chrono>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tuner/job_id.hpp"
#include "tuner/results_csv.hpp"
#include "tuner/shortlist.hpp"

namespace cct::tuner {

class JobTimes {
 public:
  // simulated: ranks simulated one after another; warmup: the untimed
  // calls before a point's repetitions (MeasureOptions::warmup), which a
  // point's calls count (Shortlist::kept_timed_s).
  JobTimes(bool simulated, int warmup) : simulated_(simulated), warmup_(warmup) {}

  // From here on each timed job is also recorded in `path` as pass `pass`
  // (job_times_file.hpp); first the jobs of that pass an earlier run
  // recorded there are taken, a job cut in two by an interruption as the
  // sum of its parts. Throws cct::Error for a malformed file.
  void keep_in(const std::string& path, int pass);

  // The job took wall_s; rows: the results file after it, the job's own
  // from row `first_new` on (an earlier run's rows took none of its time). A job that measured
  // nothing is not timed; one that an earlier run recorded adds to it. A record that cannot be
  // written is said, and the run goes on.
  void finished(const JobId& job, double wall_s, const std::vector<ResultRow>& rows,
                std::size_t first_new);
  // Whether a job on transport was timed.
  bool timed(const std::string& transport) const;
  // The planned seconds of the job a shortlist was made for, or nullopt
  // where the job of its from_np was not timed in this pass.
  std::optional<double> planned_s(const std::string& transport, const Shortlist& shortlist) const;

 private:
  struct Timed {
    double wall_s = 0;
    double grid_timed_s = 0;  // final and pruned rows' figures x (warm-up + repetitions)
    double timed_s = 0;       // the same over the job's own rows
  };
  // Appends the job to path_ (keep_in).
  void record(const JobId& job, const Timed& t) const;

  bool simulated_;
  int warmup_;
  std::map<JobId, Timed> jobs_;
  std::string path_;  // keep_in's, or empty
  int pass_ = 1;
};

// Records the jobs of each pass beside the results file `results` (the
// first of `passes` is pass first_pass), taking an earlier run's where
// `resume` (job_times_file.hpp). A malformed file is said and written
// anew: it costs the plans of the jobs it held, not the run.
void keep_job_times(const std::string& results, bool resume,
                    std::initializer_list<JobTimes*> passes, int first_pass = 1);

// A job: its plan said before it runs (where its shortlist can be
// planned), and after it, in end(), what it took, which times records.
class TimedJob {
 public:
  // rows_before: how many rows the results file held before the job.
  TimedJob(JobTimes& times, JobId job, const Shortlist* shortlist, std::size_t rows_before);
  // The job ended; rows: the results file now.
  void end(const std::vector<ResultRow>& rows);

 private:
  JobTimes& times_;
  JobId job_;
  std::size_t rows_before_;
  std::optional<double> planned_s_;
  std::chrono::steady_clock::time_point start_;
};

// "rapidio_sim np=64: planned 20 s, from np=16's job and the model's
// figures of the 306 points of np=16 the shortlist keeps"
std::string describe_plan(const std::string& transport, const Shortlist& shortlist,
                          double planned_s);
// "rapidio_sim np=64 took 18.5 s (planned 20 s)"; without a plan, the time.
std::string describe_took(const JobId& job, double took_s, std::optional<double> planned_s);

}  // namespace cct::tuner
