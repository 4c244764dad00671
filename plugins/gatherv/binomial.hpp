#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "common/scratch.hpp"
#include "common/subtree_counts.hpp"

namespace cct::plugins::gatherv {

// Binomial-tree gatherv: each rank gathers its binomial subtree's blocks
// and sends them to its parent as one packed message, so the root receives
// ceil(log2 p) messages in ceil(log2 p) steps instead of p - 1. A non-root
// knows only its own count, so before its data each rank sends its parent
// its subtree's per-rank counts (the counts of the whole tree flow up
// first, then the data; the root's children skip it, the root has the
// counts). It wins for many small blocks, where a message costs its
// latency whatever its size; large blocks are forwarded up to log2 p
// times and unpacked at the root, and belong to the linear gathervs.
class Binomial {
 public:
  static constexpr sdk::Info info{
      .name = "binomial",
      .doc = "binomial tree, subtree counts then packed data, ceil(log2 p) steps",
      .collective = CCT_GATHERV,
      .required_caps = CCT_CAP_P2P,
      .limits = CCT_LIMIT_IN_PLACE};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  Binomial(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  void gather_at_root(const cct_coll_args& a, std::size_t elem);
  void gather_subtree(const cct_coll_args& a, int vrank, std::size_t elem);
  void receive_counts(const cct_coll_args& a, int vrank, int blocks);
  void receive_data(const cct_coll_args& a, std::byte* packed, int vrank, int blocks);

  sdk::Comm comm_;
  SubtreeCounts subtree_;
  std::vector<cct_request> receives_;  // one per child
  Scratch packed_;
};

}  // namespace cct::plugins::gatherv
