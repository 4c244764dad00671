// Why a wait gave up (CCT_TIMEOUT): the ranks it waited for, each with its
// pid and what the system says that process is doing, so that a hung rank
// (stopped, or busy elsewhere) and a dead one are told apart and named.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "layout.hpp"

namespace cct::shm {

// The ranks other than `me` neither sleeping in a wait of this instance
// nor given up on one (ControlLine::waiting): the ones a wait on a shared
// flag is most likely waiting for, since a rank that reached the same
// collective call and is stuck there too would be waiting.
std::vector<int> ranks_not_waiting(const SegmentView& segment, int me);

// "no progress for 2 s; waiting for rank 1 (pid 4242, stopped), rank 3
// (pid 4244, exited)"; at most a few ranks by name, then a count. An empty
// `awaited` says every other rank is waiting too: the ranks are in
// different collective calls (a program error) or all wait on one another.
std::string stall_report(double timeout_s, const std::vector<int>& awaited,
                         const SegmentView& segment, const std::vector<pid_t>& pids);

}  // namespace cct::shm
