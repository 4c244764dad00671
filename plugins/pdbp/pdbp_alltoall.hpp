// PDBP many-to-many alltoall over shared memory (the PDBP seed in
// docs/design.md, with ParM's work-stealing pool moving the data).
//
// Every rank owns, in its part of one shared region, a pool of fixed-size
// blocks and a send matrix: one row per peer, a ring of slots that name the
// blocks holding data written for that peer, with two counters: `written`
// (stored by the writer with release) and `consumed` (stored by the reader
// with release). A call is 2 (n - 1) flows:
//   - a write flow per peer j copies this rank's block for j, a pool block
//     at a time, into slots of row j and publishes them;
//   - a read flow per peer i drains i's row for this rank straight into
//     recvbuf and acknowledges the slots, which returns the blocks to i's
//     pool (i's write flow reclaims them when it next runs).
// The buffer policy (buffer_policy.hpp) decides how many blocks each row
// may hold: rows grow past a utilisation threshold, by an amount set by the
// peer's receive/send ratio, and when the pool runs out a writer waits for
// blocks to come back instead of failing. The work-stealing pool
// (work_stealing_pool.hpp) keeps every flow in flight at once: a flow that
// cannot move yields its thread to the others, so no rank ever blocks on one
// slow peer and no cycle of waiting ranks can form.
//
// Why this shape: a message between two ranks on a node costs two copies
// through shared memory whatever the algorithm, so what decides alltoall is
// how many of the n - 1 exchanges overlap and how little memory that takes.
// Pairwise runs one at a time; linear fires all at once with unbounded
// buffering. PDBP keeps all flows moving within a fixed memory budget and
// gives that memory to the peers that keep it busy. Parameters: the block
// size (copy granularity), the initial slots per row, the growth threshold
// and the pool threads (1 by default: ranks may outnumber cores).
//
// Counters only grow, across calls: a row's chunks are numbered after the
// previous calls' on both sides (the writer's bytes for a peer are the
// bytes that peer receives from it), so a rank may start the next call
// while a slower peer still drains this one.
//
// PdbpAlltoallv (pdbp_alltoallv.hpp) runs the same flows with each pair's
// own byte counts.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "common/scratch.hpp"
#include "pdbp/buffer_policy.hpp"
#include "pdbp/work_stealing_pool.hpp"

namespace cct::plugins::pdbp {

inline constexpr std::array<int64_t, 3> kBlockBytes{4096, 16384, 65536};
inline constexpr std::array<int64_t, 3> kInitialSlots{2, 4, 8};
inline constexpr std::array<int64_t, 3> kThresholdPercent{50, 75, 100};
inline constexpr std::array<int64_t, 3> kThreads{1, 2, 4};

class PdbpAlltoall {
 public:
  static constexpr sdk::Info info{
      .name = "pdbp",
      .doc = "per-peer slot rows over one block pool, grown by use, drained by a thread pool",
      .collective = CCT_ALLTOALL,
      .required_caps = CCT_CAP_SHM,
      .limits = CCT_LIMIT_IN_PLACE};
  static constexpr std::array<cct_param_desc, 4> params{{
      {.name = "block",
       .doc = "bytes per pool block: the copy granularity (multiple of 64)",
       .type = CCT_PARAM_BYTES,
       .default_value = 16384,
       .candidates = kBlockBytes.data(),
       .ncandidates = kBlockBytes.size()},
      {.name = "slots",
       .doc = "slots per peer row when a call starts",
       .type = CCT_PARAM_INT,
       .default_value = 4,
       .candidates = kInitialSlots.data(),
       .ncandidates = kInitialSlots.size()},
      {.name = "threshold",
       .doc = "row utilisation, in percent, at which the row grows",
       .type = CCT_PARAM_INT,
       .default_value = 75,
       .candidates = kThresholdPercent.data(),
       .ncandidates = kThresholdPercent.size()},
      {.name = "threads",
       .doc = "pool threads per rank, the calling thread included",
       .type = CCT_PARAM_INT,
       .default_value = 1,
       .candidates = kThreads.data(),
       .ncandidates = kThreads.size()},
  }};

  static void check(const sdk::Comm& comm, const cct_coll_args& a, std::span<const int64_t> p);
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  PdbpAlltoall(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 protected:
  // Sets the write flow to each peer to send to(peer) (to_bytes(peer)
  // bytes) and the read flow from each peer to drain into from(peer)
  // (from_bytes(peer) bytes), then moves them all: the Blocks interface
  // of plugins/alltoallv/blocks.hpp.
  template <class Blocks>
  void exchange(const Blocks& blocks) {
    for (Flow& flow : flows_) {
      if (flow.writes) {
        flow.in = blocks.to(flow.peer);
        flow.bytes = blocks.to_bytes(flow.peer);
      } else {
        flow.out = blocks.from(flow.peer);
        flow.bytes = blocks.from_bytes(flow.peer);
      }
    }
    move_flows();
  }
  sdk::Comm comm_;
  Scratch scratch_;  // a copy of recvbuf for the in-place form

 private:
  // The parameter values, checked.
  struct Settings {
    std::size_t block;
    int slots, threshold, threads;
  };
  static Settings checked(std::span<const int64_t> params);
  PdbpAlltoall(const sdk::Comm& comm, const Settings& settings);

  // One row's counters in the writer's part, each on its own cache line.
  struct RowCounters {
    alignas(64) uint64_t written;   // chunks published, stored by the writer
    alignas(64) uint64_t consumed;  // chunks drained, stored by the reader
  };
  // A flow: its row's chunks of the previous calls, and its part and
  // progress in the current call, in chunks.
  struct Flow {
    bool writes;
    int peer;
    uint64_t before = 0;            // the row's chunks of the previous calls
    const std::byte* in = nullptr;  // what a write flow sends
    std::byte* out = nullptr;       // where a read flow drains to
    std::size_t bytes = 0;
    uint64_t chunks = 0;
    uint64_t done = 0;       // written (write flow) or drained (read flow)
    uint64_t reclaimed = 0;  // blocks returned to the pool (write flow)
  };

  RowCounters& row(int writer, int reader) const;
  uint32_t& slot(int writer, int reader, uint64_t chunk) const;
  std::byte* block_at(int owner, uint32_t block) const;
  std::size_t chunk_bytes(const Flow& flow, uint64_t chunk) const;

  void move_flows();

  WorkStealingPool::Step step(Flow& flow);
  WorkStealingPool::Step write_step(Flow& flow);
  WorkStealingPool::Step read_step(Flow& flow);
  bool reclaim(Flow& flow);
  std::string stalled_flows() const;

  std::size_t block_;
  int pool_blocks_;
  std::size_t ring_offset_, blocks_offset_;  // in each rank's part
  BufferPolicy::Patience patience_;
  sdk::SharedRegion region_;
  BufferPolicy policy_;
  WorkStealingPool pool_;
  std::vector<Flow> flows_;
  WorkStealingPool::StepFn step_fn_;
};

}  // namespace cct::plugins::pdbp
