#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "device/alltoall_flows.hpp"
#include "device/staging_chunk.hpp"

namespace cct::plugins::device {

inline constexpr std::array<int64_t, 3> kFlows{2, 8, 32};

// PDBP's many-to-many on device memory (docs/algorithms.md): `flows`
// exchanges in flight at once (alltoall_flows.hpp), where pairwise moves
// one at a time. The transport moves them together: staged, each
// message through pinned blocks it borrows from one pool with a fixed
// budget (so the memory goes to the flows that keep it busy, however many
// there are), or copied by IPC between the ranks of one node. Where a
// message costs a latency far above its bytes (device-host copies, a
// network), overlapping them is what makes alltoall fast; `flows` bounds
// how many messages a rank keeps its peers busy with.
class AlltoallPdbp {
 public:
  static constexpr sdk::Info info{
      .name = "device_pdbp",
      .doc = "device memory: PDBP's flows, many exchanges in flight over the transport's pools",
      .collective = CCT_ALLTOALL,
      .required_caps = CCT_CAP_P2P | CCT_CAP_DEVICE,
      .limits = CCT_LIMIT_IN_PLACE | CCT_LIMIT_DEVICE_MEMORY};
  static constexpr std::array<cct_param_desc, 2> params{{
      {.name = "flows",
       .doc = "exchanges (one send, one receive) in flight at once, at most size - 1",
       .type = CCT_PARAM_INT,
       .default_value = 8,
       .candidates = kFlows.data(),
       .ncandidates = kFlows.size()},
      kChunkParam,
  }};

  // A flows parameter below 1 is refused before the call runs.
  static void check(const sdk::Comm& comm, const cct_coll_args& a, std::span<const int64_t> p);
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  AlltoallPdbp(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  sdk::Comm comm_;
  StagingChunk chunk_;
  AlltoallFlows exchange_;
};

}  // namespace cct::plugins::device
