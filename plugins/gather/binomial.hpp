// Binomial-tree gather.
//
// Each rank collects the blocks of its binomial subtree and sends them to
// its parent as one message: the root receives only ceil(log2 p) messages
// and the gather takes ceil(log2 p) steps, against p - 1 messages at the
// root of the linear gather. That wins for small blocks, where a message
// costs its latency whatever its size. The price is bandwidth: blocks are
// forwarded up to log2(p) times and copied into each forwarder's temporary
// buffer, so large blocks belong to the linear gathers.
#pragma once

#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "common/scratch.hpp"

namespace cct::plugins::gather {

class Binomial {
 public:
  static constexpr cct::sdk::Info info{
      .name = "binomial",
      .doc = "binomial tree, subtrees forwarded as one message, ceil(log2 p) steps",
      .collective = CCT_GATHER,
      .required_caps = CCT_CAP_P2P,
      .limits = CCT_LIMIT_IN_PLACE,
  };

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  Binomial(const cct::sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  std::byte* assembly(const cct_coll_args& args, int vrank, int blocks, std::size_t bytes);
  void receive_children(const cct_coll_args& args, std::byte* subtree, int vrank,
                        std::size_t bytes);
  void unrotate(const cct_coll_args& args, const std::byte* subtree, std::size_t bytes) const;

  cct::sdk::Comm comm_;
  std::vector<cct_request> receives_;  // one per child, at most the tree's depth
  Scratch scratch_;                    // subtree assembly, grown to the largest call
};

}  // namespace cct::plugins::gather
