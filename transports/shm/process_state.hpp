// What the system says another process is doing, for the transport's
// judgements about its peers: whether a segment's creator is gone
// (stale_segments.cpp) and what a rank a wait gave up on is doing
// (stall.cpp).
#pragma once

#include <sys/types.h>

namespace cct::shm {

// The state letter of /proc/<pid>/stat ('R' running, 'S' sleeping, 'T'
// stopped, 'Z' zombie...), or 0 when there is no such process.
char process_state(pid_t pid);

}  // namespace cct::shm
