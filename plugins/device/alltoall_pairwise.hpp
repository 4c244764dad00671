#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "device/alltoall_flows.hpp"
#include "device/staging_chunk.hpp"

namespace cct::plugins::device {

// Pairwise alltoall of device memory (alltoall_flows.hpp with one flow):
// in step k = 1 .. n - 1 the block for rank + k is sent while the one from
// rank - k arrives, one pair of messages at a time, so that each staged
// message has the transport's pipes to itself.
class AlltoallPairwise {
 public:
  static constexpr sdk::Info info{.name = "device_pairwise",
                                  .doc = "device memory: pairwise exchange",
                                  .collective = CCT_ALLTOALL,
                                  .required_caps = CCT_CAP_P2P | CCT_CAP_DEVICE,
                                  .limits = CCT_LIMIT_IN_PLACE | CCT_LIMIT_DEVICE_MEMORY};

  static constexpr std::array<cct_param_desc, 1> params{{kChunkParam}};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  AlltoallPairwise(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  sdk::Comm comm_;
  StagingChunk chunk_;
  AlltoallFlows exchange_;
};

}  // namespace cct::plugins::device
