// Linear gather.
//
// Every rank sends its block straight to the root, which has all p - 1
// receives posted at once, each into its final place. One step, no
// forwarding and no copies beyond the transport's own: the best choice for
// large blocks (each byte crosses once) and for small communicators. The
// root handles p - 1 messages one after another, so for small blocks on
// many ranks the binomial tree's log2(p) steps win; when p - 1 concurrent
// senders swamp the root, linear_throttled bounds them.
#pragma once

#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"

namespace cct::plugins::gather {

class Linear {
 public:
  static constexpr cct::sdk::Info info{
      .name = "linear",
      .doc = "every rank sends to the root, all receives in flight at once",
      .collective = CCT_GATHER,
      .required_caps = CCT_CAP_P2P,
      .limits = CCT_LIMIT_IN_PLACE,
  };

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  Linear(const cct::sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  void receive_all(const cct_coll_args& args, std::size_t bytes);

  cct::sdk::Comm comm_;
  std::vector<cct_request> receives_;  // one per rank but the root
};

}  // namespace cct::plugins::gather
