// ccautotune tuner: the times of a run's jobs, kept beside its results
// (<fingerprint>.jobs, CSV; not .csv, which scripts take for the results),
// so that a run resumed with --resume, and --plan after it, plan from
// jobs that an earlier run timed (plan_time.hpp). One line per job, or
// per part of a job that an interruption cut in two:
//
//   pass,transport,nodes,np,wall_s,timed_s,grid_timed_s
//   1,shm,1,2,50.1,31.2,40.3
//
// pass: 1 for the first job of each size, 2 for the second (the
// reconfirmations); nodes and np: the job's shape (a file written before
// the nodes column, 2026-11-29, has jobs of one node); wall_s: the job's
// time; timed_s: its own timed calls'
// (figures x warm-up and repetitions); grid_timed_s: those of the size's
// final and pruned rows after it, its earlier runs' included.
#pragma once

#include <string>
#include <vector>

namespace cct::tuner {

struct JobRecord {
  int pass = 1;
  std::string transport;
  int nodes = 1;
  int np = 0;
  double wall_s = 0;
  double timed_s = 0;
  double grid_timed_s = 0;
};

// The file beside results "<dir>/<fingerprint>.csv": "<dir>/<fingerprint>.jobs".
std::string job_times_path(const std::string& results);

// Appends one record, the header first into a new file. Throws cct::Error
// naming the file where it cannot be written.
void append_job_record(const std::string& path, const JobRecord& record);

// The records of the file, none where it does not exist. Throws cct::Error
// naming the file and line of a malformed one.
std::vector<JobRecord> read_job_records(const std::string& path);

}  // namespace cct::tuner
