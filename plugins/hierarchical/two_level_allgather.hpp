// Two-level allgather through shared caches (the multicore collectives
// seed, docs/design.md: two-level allgather).
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
#pragma once

#include <array>
#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "hierarchical/groups.hpp"
#include "hierarchical/params.hpp"

namespace cct::plugins::hierarchical {

class TwoLevelAllgather {
 public:
  static constexpr cct::sdk::Info info{
      .name = "two_level",
      .doc = "gather per shared-cache group in shared memory, leaders exchange, groups copy out",
      .collective = CCT_ALLGATHER,
      .required_caps = CCT_CAP_P2P | CCT_CAP_SHM,
      .limits = CCT_LIMIT_IN_PLACE,
  };
  static constexpr std::array<cct_param_desc, 2> params{{kLevelParam, kChunkParam}};

  static void check(const cct::sdk::Comm& comm, const cct_coll_args& args,
                    std::span<const int64_t> params);
  TwoLevelAllgather(const cct::sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  void gather(const cct_coll_args& args, std::size_t block);
  void across_leaders(std::byte* out, std::size_t block, uint32_t tag);
  void release(std::byte* out, std::size_t bytes);

  cct::sdk::Comm comm_;
  Groups groups_;
  std::size_t chunk_;
  cct::sdk::SharedRegion region_;
  uint64_t gathered_ = 0;              // chunks through each member's channel so far
  uint64_t released_ = 0;              // chunks through each leader's channel so far
  std::vector<cct_request> requests_;  // a leader's receives and sends in step 2
};

}  // namespace cct::plugins::hierarchical
