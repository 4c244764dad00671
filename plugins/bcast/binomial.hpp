// Binomial-tree broadcast.
//
// The set of ranks holding the data doubles every round: ceil(log2 p)
// rounds, each moving the whole buffer. For small messages, where a round
// costs one latency whatever the size, that depth is the minimum for
// one-to-one sends, so this is the classic small-message broadcast. For large
// messages it moves log2(p) times the buffer through the root's subtree
// chain, and scatter_allgather or chain win.
#pragma once

#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"

namespace cct::plugins::bcast {

class Binomial {
 public:
  static constexpr cct::sdk::Info info{
      .name = "binomial",
      .doc = "binomial tree, ceil(log2 p) rounds of whole-buffer sends",
      .collective = CCT_BCAST,
      .required_caps = CCT_CAP_P2P,
  };

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  Binomial(const cct::sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  cct::sdk::Comm comm_;
  std::vector<cct_request> sends_;  // one per child, at most the tree's depth
};

}  // namespace cct::plugins::bcast
