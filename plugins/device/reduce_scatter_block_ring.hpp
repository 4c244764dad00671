#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "cct/sdk/device.hpp"
#include "device/staging_chunk.hpp"

namespace cct::plugins::device {

// Ring reduce_scatter_block on device memory: the ring reduce-scatter
// (ring_steps.hpp) on a device copy of the input, each rank ending with
// its own block, which it copies out. (n - 1) / n of the input moves over
// neighbour links; reductions on the device.
class ReduceScatterBlockRing {
 public:
  static constexpr sdk::Info info{
      .name = "device_ring",
      .doc = "device memory: ring reduce-scatter, reductions on the device",
      .collective = CCT_REDUCE_SCATTER_BLOCK,
      .required_caps = CCT_CAP_P2P | CCT_CAP_DEVICE,
      .limits = CCT_LIMIT_IN_PLACE | CCT_LIMIT_COMMUTATIVE | CCT_LIMIT_DEVICE_MEMORY};

  static constexpr std::array<cct_param_desc, 1> params{{kChunkParam}};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  ReduceScatterBlockRing(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  sdk::Comm comm_;
  StagingChunk chunk_;
  sdk::Device device_;
  sdk::DeviceScratch acc_, tmp_;
};

}  // namespace cct::plugins::device
