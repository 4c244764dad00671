// ccautotune tuner: the shortlist of each job of a run, kept beside its
// results (<fingerprint>.shortlists), so that a size's second job, and a
// run resumed with --resume, measure the points its first job did
// (shortlist.hpp; docs/cost_model.md, "The second job's shortlist").
//
// Made again from the rows, the second job's shortlist could differ from
// the first's: the second job of a size below times its winners again,
// and where another wins, it measures crossovers, checks and element
// types there, which move the model's picks. Under mpirun (2, 3 and 5
// ranks) np 5's second job kept 60 points where its first kept 58; it
// measured the 2 new ones from nothing and did not time again those the
// first had kept instead.
//
// A shortlist is kept for the run, its resumed runs included; one whose
// keep (--shortlist) or confirming differs from what the job asks is made
// again and kept anew. One of a run that measured other collectives or
// message sizes still serves: the points it does not name are measured
// whole. The file, a record per job:
//
//   shortlist<TAB>transport<TAB>lines
//   <lines lines of write_shortlist's text (its first: nodes, np, ..)>
//
// a later record of the same job replacing an earlier one.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "tuner/job_id.hpp"
#include "tuner/shortlist.hpp"

namespace cct::tuner {

// The file beside results "<dir>/<fingerprint>.csv":
// "<dir>/<fingerprint>.shortlists".
std::string kept_shortlists_path(const std::string& results);

class KeptShortlists {
 public:
  // The shortlists kept beside the results file `results` by the run this
  // one resumes (`resume`), else none: the file is removed. A malformed
  // file is said and written anew: it costs the second jobs of its sizes
  // their first job's shortlists, not the run.
  KeptShortlists(const std::string& results, bool resume);

  // The shortlist kept of the job, if any.
  std::optional<Shortlist> find(const JobId& job) const;
  // Keeps shortlist as the one of its job on transport. One that cannot
  // be written is said, and the run goes on.
  void keep(const std::string& transport, const Shortlist& shortlist);

 private:
  std::string path_;
  std::map<JobId, Shortlist> kept_;
};

}  // namespace cct::tuner
