// Linear gather with a bounded number of senders at a time.
//
// As the linear gather, but the root lets at most `max_outstanding` ranks
// send at once: it posts a receive, then tells that rank to go with an empty
// message, and admits the next rank when the oldest transfer is done. When
// p - 1 ranks push large blocks at once, the root's link, memory bandwidth
// or the transport's unexpected-message buffers are oversubscribed and the
// transfers slow each other down (incast); a small window keeps the root
// busy without that congestion. The go message costs one latency per
// window, so for small blocks the plain linear or binomial gather wins.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "common/window_param.hpp"

namespace cct::plugins::gather {

class LinearThrottled {
 public:
  static constexpr cct::sdk::Info info{
      .name = "linear_throttled",
      .doc = "linear gather, at most max_outstanding senders admitted at a time",
      .collective = CCT_GATHER,
      .required_caps = CCT_CAP_P2P,
      .limits = CCT_LIMIT_IN_PLACE,
  };
  static constexpr std::array<cct_param_desc, 1> params{{kWindowParam}};

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  static void check(const cct::sdk::Comm& comm, const cct_coll_args& args,
                    std::span<const int64_t> params);
  LinearThrottled(const cct::sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  void receive_all(const cct_coll_args& args, std::size_t bytes);

  cct::sdk::Comm comm_;
  std::size_t window_;  // senders admitted at once, at most p - 1
  // Slot i holds the receive of a block and the send of its go message.
  std::vector<std::array<cct_request, 2>> slots_;
  char token_ = 0;  // address of the go messages
};

}  // namespace cct::plugins::gather
