#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "cct/sdk/device.hpp"
#include "device/staging_chunk.hpp"

namespace cct::plugins::device {

// Ring allgather on device memory: each rank's block copied into place on
// the device, then n - 1 steps each passing the block received last to the
// right, straight between device buffers (the transport stages them).
class AllgatherRing {
 public:
  static constexpr sdk::Info info{.name = "device_ring",
                                  .doc = "device memory: ring allgather",
                                  .collective = CCT_ALLGATHER,
                                  .required_caps = CCT_CAP_P2P | CCT_CAP_DEVICE,
                                  .limits = CCT_LIMIT_IN_PLACE | CCT_LIMIT_DEVICE_MEMORY};

  static constexpr std::array<cct_param_desc, 1> params{{kChunkParam}};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  AllgatherRing(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  sdk::Comm comm_;
  StagingChunk chunk_;
  sdk::Device device_;
};

}  // namespace cct::plugins::device
