// Binomial-tree scatter.
//
// The root sends each child the blocks of the child's whole binomial
// subtree as one message, and every rank passes on what its own children
// need: ceil(log2 p) steps, and the root issues only ceil(log2 p) messages
// instead of the linear scatter's p - 1. That wins for small blocks, where a
// message costs its latency whatever its size. Blocks travel up to log2(p)
// hops through temporary buffers, so large blocks belong to the linear
// scatters.
#pragma once

#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "common/scratch.hpp"

namespace cct::plugins::scatter {

class Binomial {
 public:
  static constexpr cct::sdk::Info info{
      .name = "binomial",
      .doc = "binomial tree, each child gets its subtree's blocks, ceil(log2 p) steps",
      .collective = CCT_SCATTER,
      .required_caps = CCT_CAP_P2P,
      .limits = CCT_LIMIT_IN_PLACE,
  };

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  Binomial(const cct::sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  const std::byte* root_blocks(const cct_coll_args& args, std::size_t bytes);
  const std::byte* receive_subtree(const cct_coll_args& args, int blocks, std::size_t bytes,
                                   int parent);
  std::size_t send_children(const cct_coll_args& args, const std::byte* subtree, int vrank,
                            std::size_t bytes);
  void keep_own(const cct_coll_args& args, const std::byte* subtree, int vrank,
                std::size_t bytes) const;

  cct::sdk::Comm comm_;
  std::vector<cct_request> sends_;  // one per child, at most the tree's depth
  Scratch scratch_;                 // a subtree's blocks, grown to the largest call
};

}  // namespace cct::plugins::scatter
