#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "common/scratch.hpp"
#include "common/subtree_counts.hpp"

namespace cct::plugins::scatterv {

// Binomial-tree scatterv: the root packs the blocks in virtual rank order
// and sends each child its subtree's per-rank counts, then the subtree's
// blocks as one message; each inner rank keeps its own block and passes
// its children theirs alike. A leaf knows its own count and gets no counts
// message. The root sends ceil(log2 p) messages in ceil(log2 p) steps
// instead of p - 1: the choice for many small blocks, where a message
// costs its latency whatever its size. Large blocks are packed at the root
// and forwarded up to log2 p times: they belong to the linear scattervs.
class Binomial {
 public:
  static constexpr sdk::Info info{
      .name = "binomial",
      .doc = "binomial tree, subtree counts then packed data, ceil(log2 p) steps",
      .collective = CCT_SCATTERV,
      .required_caps = CCT_CAP_P2P,
      .limits = CCT_LIMIT_IN_PLACE};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& a,
                       std::span<const int64_t> params);
  Binomial(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  void scatter_from_root(const cct_coll_args& a, std::size_t elem);
  void scatter_subtree(const cct_coll_args& a, int vrank, std::size_t elem);
  std::size_t send_children(const cct_coll_args& a, const std::byte* packed, int vrank, int blocks);

  sdk::Comm comm_;
  SubtreeCounts subtree_;
  std::vector<cct_request> sends_;  // a child's counts and data
  Scratch packed_;
};

}  // namespace cct::plugins::scatterv
