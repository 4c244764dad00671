// The mcast and aggregate tables report failures in a cct_error of the
// caller's (not in the instance's last_error, as p2p and atomics do): turn
// one into the exception the SDK reports as the transport's status.
#pragma once

#include <string>

#include "cct/sdk/comm.hpp"

namespace cct::plugins::switch_assisted {

inline void check_switch_status(cct_status status, const char* what, const cct_error& err) {
  if (status != CCT_OK)
    throw sdk::TransportError(status, std::string(what) + " failed (status " +
                                          std::to_string(status) + "): " + err.message);
}

}  // namespace cct::plugins::switch_assisted
