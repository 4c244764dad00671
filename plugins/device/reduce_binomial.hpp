#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "cct/sdk/device.hpp"
#include "device/staging_chunk.hpp"

namespace cct::plugins::device {

// Binomial-tree reduce of device memory: each rank reduces its children's
// partial results into its own on the device, smallest subtree first, and
// sends the sum to its parent. ceil(log2 n) rounds; the host never touches
// the data.
class ReduceBinomial {
 public:
  static constexpr sdk::Info info{
      .name = "device_binomial",
      .doc = "device memory: binomial-tree reduce, reductions on the device",
      .collective = CCT_REDUCE,
      .required_caps = CCT_CAP_P2P | CCT_CAP_DEVICE,
      .limits = CCT_LIMIT_IN_PLACE | CCT_LIMIT_COMMUTATIVE | CCT_LIMIT_DEVICE_MEMORY};

  static constexpr std::array<cct_param_desc, 1> params{{kChunkParam}};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  ReduceBinomial(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  sdk::Comm comm_;
  StagingChunk chunk_;
  sdk::Device device_;
  sdk::DeviceScratch acc_, tmp_;
};

}  // namespace cct::plugins::device
