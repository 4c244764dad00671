// The launching parent's side of a local launch (private to libcct): serves
// the ranks' bootstrap requests, watches the rank processes and turns the
// first failure into a message naming the rank and the cause.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "cct/launcher.hpp"

namespace cct::detail {

struct RankProcess {
  pid_t pid = -1;
  int fd = -1;  // the parent's end of the rank's socket; owned by the server
};

// Serves until every rank exited, or one failed, or timeout_s (0: none)
// passed, or the watchdog (if set) answered why to stop. On failure the
// ranks still running are SIGKILLed. Every process is reaped and every fd
// closed before it returns.
LaunchResult serve_ranks(std::vector<RankProcess> ranks, double timeout_s,
                         const std::function<std::string()>& watchdog);

}  // namespace cct::detail
