// ccautotune tuner: one job, the search of a space on every rank of a
// communicator. Its ranks enumerate the same points, run the same search
// (search.hpp) on the same figures, and rank 0 writes the rows and the
// progress.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "cct/communicator.hpp"
#include "cct/registry.hpp"
#include "tuner/job_progress.hpp"
#include "tuner/kept_shortlists.hpp"
#include "tuner/options.hpp"
#include "tuner/plan_space.hpp"
#include "tuner/results_csv.hpp"
#include "tuner/shortlist.hpp"

namespace cct::tuner {

// Searches the space collective by collective, skipping the points of
// `known` (rows of earlier runs by key) and every point of a candidate that
// failed in this shape; rank 0 appends each measured row to opts.results.
// Collective over comm. Stops early, with a note, once the measured time
// passes opts.time_budget_s. With `progress`, notes what runs in it, so
// that the launcher can name the culprit if the job dies. On a device
// transport (enumerate_device), `staging` is the host communicator under
// it, where the staged points run. With a shortlist, the points it drops
// are not measured (shortlist.hpp), and rank 0 says how many.
void measure_space(const Registry& registry, Communicator& comm, const Space& space,
                   const Options& opts, const std::map<std::string, ResultRow>& known,
                   JobProgress* progress = nullptr, const Communicator* staging = nullptr,
                   const Shortlist* shortlist = nullptr);

// The shapes over `nodes` nodes confirming jobs measure: those of the
// ranks per node of `predicted` that confirmed_sizes (default_sizes.hpp)
// gives, `measured` being the run's measured ranks per node there; none
// with --exhaustive or --shortlist 0, where no job shortlists.
std::vector<ConfirmedShape> confirmed_for(const Options& opts, int nodes,
                                          const std::vector<int>& measured,
                                          const std::vector<int>& predicted);

// What a job of np ranks over `nodes` nodes on transport need not measure
// (shortlist.hpp), from the rows of opts.results so far; none with
// --exhaustive or --shortlist 0. A job of a shape of opts.confirm_shapes
// is a confirming one; the rows of those are not used.
std::optional<Shortlist> shortlist_for(const Registry& registry, const Options& opts,
                                       const std::vector<ResultRow>& rows, const ShapeOf& shape,
                                       const TransportEntry& transport, int nodes, int np);

// The shortlist a job of np ranks over `nodes` nodes on transport would
// measure now: the one `kept` of an earlier job of that shape in this run
// or the one it resumes (its first job's, which its second job measures
// again; *was_kept then set), else shortlist_for's. A kept one made with
// another --shortlist, or confirming where the size is now measured, does
// not serve.
std::optional<Shortlist> kept_or_made(const Registry& registry, const Options& opts,
                                      const std::vector<ResultRow>& rows, const ShapeOf& shape,
                                      const TransportEntry& transport, int nodes, int np,
                                      const KeptShortlists& kept, bool* was_kept = nullptr);

// The shortlist the job measures: kept_or_made's, which it keeps where it
// was made. Rank 0's; says where a kept one serves.
std::optional<Shortlist> job_shortlist(const Registry& registry, const Options& opts,
                                       const std::vector<ResultRow>& rows, const ShapeOf& shape,
                                       const TransportEntry& transport, int nodes, int np,
                                       KeptShortlists& kept);

// A job relaunched this many times past failed candidates gives up: the
// failures are then not the candidates'.
constexpr int kMostRelaunches = 20;

// Said when the launcher starts the second job (search.hpp, step 3).
constexpr const char* kSecondJob =
    "a second job times each size's picks again as programs call them, in fresh processes "
    "(--single-job skips it)";

// Records the candidate that was running when the job failed (its point as
// a failed row, with the reason), so that the relaunched job and every
// later profile leave it out of this shape, and says so on stderr. False
// when no point was running (the job died between points) or it was
// already recorded.
bool record_failure(const JobProgress& progress, const std::string& why, const Options& opts,
                    std::map<std::string, ResultRow>& known);

}  // namespace cct::tuner
