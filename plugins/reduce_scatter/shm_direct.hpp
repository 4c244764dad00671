#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "reduce_scatter/rank_blocks.hpp"

namespace cct::plugins::reduce_scatter {

// Direct reduce-scatter in shared memory: every rank copies its input once
// into its slot of a shared region, and once all have, reduces its own
// block straight from every peer's slot into its result (its own
// contribution straight from its input). No messages and no steps: each
// byte is copied once and reduced once, by the one rank that owns its
// block, all ranks at once, with two waits per call whatever n is. The
// message-passing algorithms move the data through the transport's queues
// (a copy on each side) in n - 1 or log2(n) dependent steps; on one node
// this wins at every size where the vector fits the region, most of all for
// small and medium vectors, where those steps' latency dominates.
//
// A rank's part of the region: | arrived | done | slot |, each flag on a
// cache line of its own. arrived = calls whose input the rank has put in
// its slot, done = calls it has finished reading its peers' slots for.
// Calls are numbered over the life of the region, alike on every rank, so
// the flags only ever grow. A rank waits until every peer is done with the
// previous call before it overwrites its slot: that second wait comes at
// the start of the next call, where it usually costs nothing. The region
// grows (collectively: every rank sees the same vector, so all grow in the
// same call) to the next power of two above the largest vector so far.
template <cct_collective C>
class ShmDirect {
 public:
  static constexpr sdk::Info info{
      .name = "shm_direct",
      .doc = "inputs copied once into shared memory, each rank reduces its block from all copies",
      .collective = C,
      .required_caps = CCT_CAP_SHM,
      .limits = CCT_LIMIT_IN_PLACE | CCT_LIMIT_COMMUTATIVE};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  ShmDirect(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  uint64_t* arrived(int rank) const;
  uint64_t* done(int rank) const;
  std::byte* slot(int rank) const;
  void fit(std::size_t bytes);
  void hand_in(const cct_coll_args& a, const CountedBlocks& blocks);
  void reduce_own(const cct_coll_args& a, const CountedBlocks& blocks) const;

  sdk::Comm comm_;
  RankBlocks ranks_;
  std::size_t slot_bytes_ = 0;
  std::optional<sdk::SharedRegion> region_;
  uint64_t calls_ = 0;  // calls through the region so far
};

}  // namespace cct::plugins::reduce_scatter
