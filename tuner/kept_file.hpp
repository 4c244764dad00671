// ccautotune tuner: a file a run keeps beside its results for its second
// jobs and the runs that resume it (the job times, job_times_file.hpp; the
// shortlists, kept_shortlists.hpp), opened the one way both are.
#pragma once

#include <functional>
#include <string>

namespace cct::tuner {

// Opens the kept file at path for a run: removed first unless the run
// resumes, then read by `read`. One that `read` finds malformed (throws
// cct::Error) is said, with `lost` (what it costs, "plans go without the
// jobs it held"), and removed, to be written anew: a malformed kept file
// costs what it held, not the run.
void open_kept_file(const std::string& path, bool resume, const std::function<void()>& read,
                    const std::string& lost);

}  // namespace cct::tuner
