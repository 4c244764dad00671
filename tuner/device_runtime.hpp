// ccautotune tuner: a candidate on device buffers as a program's call
// reaches it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "cct/communicator.hpp"
#include "cct/registry.hpp"
#include "cct/runtime.hpp"

namespace cct::tuner {

// A runtime on `host` whose device rules (over `device`, the device
// transport's communicator of the same ranks) name alg with these
// parameter values alone, for every size of its collective; alg null: no
// device rules. A call on device buffers then runs as a program's call on
// them does: the ranks agree on memory kinds, then alg runs where every
// rank passes device memory (without rules: the host default, on host
// copies). Both communicators must outlive it.
std::unique_ptr<Runtime> device_runtime(const Registry& registry, const Communicator& host,
                                        const Communicator& device,
                                        const AlgorithmEntry* alg = nullptr,
                                        const std::vector<int64_t>& params = {});

}  // namespace cct::tuner
