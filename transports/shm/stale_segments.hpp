// Shared-memory segments whose creator died before unlinking them.
//
// A segment's name is removed as soon as every rank has mapped it, but a
// rank killed in between (SIGKILL, a crash, a launcher killed with its
// ranks) leaves the name in /dev/shm, and the memory with it, until reboot.
// Names carry the creator's pid ("/<job key>-shm-<pid>-<n>[-r<k>]"), so a
// later start can tell such leftovers and remove them.
#pragma once

namespace cct::shm {

// Removes, once per process, every /dev/shm/cct-*-shm-<pid>-* whose creator
// pid no longer exists or is a zombie, and that was last modified more than
// a minute ago (so that a segment of a live job in another PID namespace,
// whose creator this process cannot see, is only ever touched long after
// the moments between its creation and its unlinking).
void remove_stale_segments();

}  // namespace cct::shm
