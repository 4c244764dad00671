// Two-level allgather and allgatherv through shared caches (the multicore
// collectives seed, docs/design.md: two-level allgather).
//
// The ranks split into groups that share a cache (the `level` parameter,
// see groups.hpp), each led by its lowest rank. Three steps:
//   1. gather: each member streams its block through a shared channel in
//      its own part (channel.hpp) and the leader copies it into place;
//   2. across: the leaders exchange their groups' blocks over p2p, every
//      leader with every other one at once;
//   3. release: each leader streams the whole result through the channel
//      in its own part and its members copy it out.
// Only the leaders cross the links between groups, each block once per
// group rather than once per rank, and inside a group the result is read
// from the cache the group shares. Gather and release go through the
// channels' small slots (`chunk`), so any size fits a region sized once at
// prepare, and copying in overlaps copying out.
//
// allgatherv is the same with a block of its own size per rank, each at the
// rank's own displacement: a leader streams the result as the blocks one
// after another in rank order (blocks_stream.hpp), and each member puts
// them where its displacements say. allgather is the case of equal blocks
// in rank order, a single contiguous run.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "hierarchical/blocks_stream.hpp"
#include "hierarchical/groups.hpp"
#include "hierarchical/params.hpp"

namespace cct::plugins::hierarchical {

template <cct_collective C>
class TwoLevelAllgather {
 public:
  static constexpr cct::sdk::Info info{
      .name = "two_level",
      .doc = "gather per shared-cache group in shared memory, leaders exchange, groups copy out",
      .collective = C,
      .required_caps = CCT_CAP_P2P | CCT_CAP_SHM,
      .limits = CCT_LIMIT_IN_PLACE,
  };
  static constexpr std::array<cct_param_desc, 2> params{{kLevelParam, kChunkParam}};

  static void check(const cct::sdk::Comm& comm, const cct_coll_args& args,
                    std::span<const int64_t> params);
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  TwoLevelAllgather(const cct::sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  static BlockLayout layout_of(const cct_coll_args& args);
  void gather(const cct_coll_args& args, const BlockLayout& layout);
  void across_leaders(std::byte* out, const BlockLayout& layout, uint32_t tag);
  void release(std::byte* out);

  cct::sdk::Comm comm_;
  Groups groups_;
  std::size_t chunk_;
  cct::sdk::SharedRegion region_;
  // Chunks through each rank's channel so far: a member's carries its
  // block to the leader in step 1, a leader's the result in step 3.
  std::vector<uint64_t> streamed_;
  BlocksStream stream_;                // this rank's result as step 3 streams it
  std::vector<cct_request> requests_;  // a leader's receives and sends in step 2
};

}  // namespace cct::plugins::hierarchical
