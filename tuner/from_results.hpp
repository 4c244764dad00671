// ccautotune tuner: this machine's profile from another machine's results
// (--from-results), measuring nothing.
//
// The other machine must be of this one's kind (cct/machine_kind.hpp: the
// same items in its summary, other counts or cache sizes), told by the
// profile ccautotune wrote beside its results. Its measured rules are kept
// as they were measured there (measured_np), and every default communicator
// size of this machine it did not measure is predicted by the cost model
// fitted to its figures (predict.hpp): the measured sizes' cost shapes on
// its topology (rebuilt from its summary), the predicted sizes' on this
// one. The profile carries this machine's fingerprint, so the runtime takes
// it as this machine's own; its `tuning` says where it came from.
#pragma once

#include "cct/registry.hpp"
#include "tuner/options.hpp"

namespace cct::tuner {

// Writes the profile (output.hpp, write_profile) from opts.from_results;
// returns whether one was written. Throws UsageError where the results'
// machine is unknown, of another kind, or this one.
bool profile_from_results(const Registry& registry, Options opts);

}  // namespace cct::tuner
