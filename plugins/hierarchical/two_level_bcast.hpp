// Two-level broadcast through shared caches (the multicore collectives
// seed, docs/design.md: two-level bcast).
//
// The ranks split into groups that share a cache (the `level` parameter,
// see groups.hpp); each group has a leader, and the root leads its own
// group. First the leaders get the buffer: a binomial tree over p2p among
// the leaders, rooted at the root. Then each leader streams the buffer
// through a shared channel (channel.hpp) in its group's home part, and the
// group's other ranks copy it out. Only one copy per group crosses the
// slower links between caches (or sockets); inside a group every rank reads
// the same lines from the cache they share, instead of each pulling its own
// copy over p2p. A leader first posts the sends to its child leaders and
// then feeds its group, so both proceed at once. The channel's slots
// pipeline large buffers: the leader fills slot i + 1 while its group
// reads slot i, through a buffer that stays in the cache (`chunk`).
#pragma once

#include <array>
#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "hierarchical/groups.hpp"
#include "hierarchical/params.hpp"

namespace cct::plugins::hierarchical {

class TwoLevelBcast {
 public:
  static constexpr cct::sdk::Info info{
      .name = "two_level",
      .doc = "binomial among shared-cache group leaders, then a shared-memory pipe per group",
      .collective = CCT_BCAST,
      .required_caps = CCT_CAP_P2P | CCT_CAP_SHM,
  };
  static constexpr std::array<cct_param_desc, 2> params{{kLevelParam, kChunkParam}};

  static void check(const cct::sdk::Comm& comm, const cct_coll_args& args,
                    std::span<const int64_t> params);
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  TwoLevelBcast(const cct::sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  void across_leaders(std::byte* buf, std::size_t bytes, int root, uint32_t tag);
  void within_group(std::byte* buf, std::size_t bytes, int root);

  cct::sdk::Comm comm_;
  Groups groups_;
  std::size_t chunk_;
  cct::sdk::SharedRegion region_;
  uint64_t chunks_ = 0;             // chunks through this rank's group channel so far
  std::vector<cct_request> sends_;  // to the child leaders, one per tree level
  std::size_t posted_ = 0;
};

}  // namespace cct::plugins::hierarchical
