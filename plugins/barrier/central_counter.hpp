// Sense-reversing central counter barrier in shared memory.
//
// Every rank increments one counter in a shared region; the last to arrive
// resets it and flips a shared sense flag, on which the others wait. Arrival
// is one atomic and departure one cache-line broadcast, with no message
// passing at all: on a single node with few ranks (or ranks that share a
// cache) nothing is faster. The counter line is contended by every rank, so
// it loses to the tree barriers as ranks spread over sockets. Flipping the
// sense (instead of counting down to zero and back) lets the next barrier
// start before every rank has seen the previous one end.
#pragma once

#include <span>

#include "cct/sdk/algorithm.hpp"

namespace cct::plugins::barrier {

class CentralCounter {
 public:
  static constexpr cct::sdk::Info info{
      .name = "central_counter",
      .doc = "one shared atomic counter and a sense flag; needs shared memory",
      .collective = CCT_BARRIER,
      .required_caps = CCT_CAP_SHM,
  };

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  // Allocates the shared region (collective), once per plan.
  CentralCounter(const cct::sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  uint64_t* word(std::size_t offset) const;

  cct::sdk::Comm comm_;
  cct::sdk::SharedRegion region_;
  uint64_t sense_ = 0;  // the value of the flag that ends this rank's current barrier
};

}  // namespace cct::plugins::barrier
