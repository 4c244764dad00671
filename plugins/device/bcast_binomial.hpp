#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "device/staging_chunk.hpp"

namespace cct::plugins::device {

// Binomial-tree broadcast of device memory: each rank receives the whole
// buffer from its parent and passes it on to its children, largest subtree
// first, straight between device buffers (the transport stages each
// message in overlapping chunks). ceil(log2 n) rounds; nothing to compute.
class BcastBinomial {
 public:
  static constexpr sdk::Info info{.name = "device_binomial",
                                  .doc = "device memory: binomial-tree broadcast",
                                  .collective = CCT_BCAST,
                                  .required_caps = CCT_CAP_P2P | CCT_CAP_DEVICE,
                                  .limits = CCT_LIMIT_IN_PLACE | CCT_LIMIT_DEVICE_MEMORY};

  static constexpr std::array<cct_param_desc, 1> params{{kChunkParam}};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  BcastBinomial(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  sdk::Comm comm_;
  StagingChunk chunk_;
  std::vector<cct_request> sends_;
};

}  // namespace cct::plugins::device
