// ccautotune: the memory a job's measurement buffers take, checked before
// the job starts. Each rank keeps --buffers sets sized for the largest
// call it measures (alltoall at --max-bytes takes np times that, twice), so
// a careless --buffers or --max-bytes could ask for more than the machine
// has and end in the kernel's OOM killer, hours into a run.
#pragma once

#include "tuner/options.hpp"

namespace cct::tuner {

// Throws UsageError (naming the figures and what to lower) when the buffers
// of `ranks_here` ranks of a job of np ranks exceed the memory this machine
// has available; says on stdout (when `speaks`) what they take when each
// rank's are large.
void check_buffer_memory(const Options& opts, int np, int ranks_here, bool speaks);

}  // namespace cct::tuner
