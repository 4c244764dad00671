// Recursive-doubling barrier.
//
// In round k rank r exchanges an empty message with r XOR 2^k: a butterfly in
// which each round is a set of disjoint pairs, so every message is answered
// by its partner and no rank waits on a third party. That suits transports
// where a pairwise exchange is cheaper than a send and an unrelated receive
// (a full-duplex link, a shared cache line per pair). A butterfly needs a
// power of two: the ranks beyond the largest power of two p2 first hand
// their arrival to rank r - p2, which stands in for them, and are released
// by it at the end. That costs two extra rounds on such sizes, where
// dissemination needs none.
#pragma once

#include <span>

#include "cct/sdk/algorithm.hpp"

namespace cct::plugins::barrier {

class RecursiveDoubling {
 public:
  static constexpr cct::sdk::Info info{
      .name = "recursive_doubling",
      .doc = "pairwise exchanges with r XOR 2^k; extra ranks folded onto the power of two",
      .collective = CCT_BARRIER,
      .required_caps = CCT_CAP_P2P,
  };

  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  RecursiveDoubling(const cct::sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  void butterfly(uint32_t tag);

  cct::sdk::Comm comm_;
  int pow2_;   // largest power of two <= size
  int extra_;  // ranks pow2_..size-1, folded onto ranks 0..extra_-1
  char token_ = 0;
};

}  // namespace cct::plugins::barrier
