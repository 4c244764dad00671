#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "common/scratch.hpp"

namespace cct::plugins::scan {

inline constexpr std::array<int64_t, 4> kChainSegments{8 << 10, 32 << 10, 128 << 10, 512 << 10};

// Chain scan: the prefix flows up the ranks, 0 -> 1 -> .. -> n - 1. Rank r
// receives the reduction over ranks 0..r-1 from r - 1, combines its own
// input on the right of it and passes the result on; on exscan the received
// prefix is the result and what goes on is the prefix with the own input.
// Every rank reads and combines the vector once (recursive doubling does so
// log2(n) times) and sends it once, at the price of n - 1 latencies in a
// row: the choice for large vectors on few ranks. The vector moves in
// segments, so that rank r combines segment s while rank r - 1 combines
// segment s + 1: with the pipeline full the chain costs about one pass over
// the vector plus n - 2 segments, not n - 1 passes. `segment` trades the
// pipeline's fill (small) against the cost per message (large).
template <cct_collective C>
class Chain {
 public:
  static constexpr sdk::Info info{.name = "chain",
                                  .doc = "prefix passed up the ranks in pipelined segments",
                                  .collective = C,
                                  .required_caps = CCT_CAP_P2P,
                                  .limits = CCT_LIMIT_IN_PLACE};
  static constexpr std::array<cct_param_desc, 1> params{{
      {.name = "segment",
       .doc = "bytes per pipelined message",
       .type = CCT_PARAM_BYTES,
       .default_value = 32 << 10,
       .candidates = kChainSegments.data(),
       .ncandidates = kChainSegments.size(),
       .lo = 0,
       .hi = 0,
       .step = 0,
       .step_kind = CCT_STEP_ADD},
  }};

  static void check(const sdk::Comm& comm, const cct_coll_args& a, std::span<const int64_t> p);
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  Chain(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  // The segments of one call and the chain's neighbours.
  struct Call;
  static constexpr std::size_t kSlots = 3;

  Call call_of(const cct_coll_args& a) const;
  void head(const Call& c);
  void relay(const Call& c);
  void combine(const Call& c, std::size_t s, std::byte* slots);
  std::byte* received(const Call& c, std::size_t s, std::byte* slots) const;
  void receive(const Call& c, std::size_t s, std::byte* slots);
  void send(const Call& c, std::size_t s, const std::byte* seg);
  void wait_send(std::size_t s);
  void wait_sends(const Call& c);

  sdk::Comm comm_;
  std::size_t segment_;
  Scratch scratch_;  // kSlots received segments, then (exscan) kSlots to send on
  std::array<cct_request, kSlots> recv_req_{};
  std::array<cct_request, kSlots> send_req_{};
};

}  // namespace cct::plugins::scan
