// Linear scatter with a bounded number of sends in flight.
//
// As the linear scatter, but the root keeps at most `max_outstanding` sends
// in flight and starts the next when the oldest is done. With p - 1 large
// transfers at once the root's memory bandwidth, its link or the receivers'
// unexpected-message buffers are oversubscribed and the transfers slow each
// other down; a small window keeps the root busy without that congestion and
// bounds what the transport must buffer. With small blocks there is nothing
// to congest and the window only adds waits: the plain linear or binomial
// scatter wins there.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "cct/sdk/algorithm.hpp"
#include "common/window_param.hpp"

namespace cct::plugins::scatter {

class LinearThrottled {
 public:
  static constexpr cct::sdk::Info info{
      .name = "linear_throttled",
      .doc = "linear scatter, at most max_outstanding sends in flight at the root",
      .collective = CCT_SCATTER,
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
  void send_all(const cct_coll_args& args, std::size_t bytes);

  cct::sdk::Comm comm_;
  std::size_t window_;              // sends in flight at once, at most p - 1
  std::vector<cct_request> sends_;  // window_ slots, reused round robin
};

}  // namespace cct::plugins::scatter
