#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "cct/sdk/algorithm.hpp"
#include "common/scratch.hpp"

namespace cct::plugins::reduce {

inline constexpr std::array<int64_t, 3> kChainSegments{8 << 10, 32 << 10, 128 << 10};

// Pipelined chain reduce: the vector is cut into segments that flow down the
// chain (rank root + n - 1) -> .. -> (root + 1) -> root, each rank adding its
// own segment before passing it on. A rank holds only three segments in
// flight (receiving, reducing, sending), whatever the vector's size. Once the pipeline is full
// every link carries a segment at the same time, so the time approaches bytes / bandwidth + (n - 2)
// segment times, independent of log2(n): the choice for large vectors on many ranks, or where links
// are slow and per-message cost is low. Small vectors pay n - 1 sequential hops and should use
// binomial. The segment size trades pipeline depth (small segments) against per-message overhead
// (large ones).
class Chain {
 public:
  static constexpr sdk::Info info{.name = "chain",
                                  .doc = "pipelined chain toward the root, in segments",
                                  .collective = CCT_REDUCE,
                                  .required_caps = CCT_CAP_P2P,
                                  .limits = CCT_LIMIT_IN_PLACE | CCT_LIMIT_COMMUTATIVE};
  static constexpr std::array<cct_param_desc, 1> params{{
      {.name = "segment",
       .doc = "bytes per pipelined message",
       .type = CCT_PARAM_BYTES,
       .default_value = 32 << 10,
       .candidates = kChainSegments.data(),
       .ncandidates = kChainSegments.size()},
  }};

  static void check(const sdk::Comm& comm, const cct_coll_args& a, std::span<const int64_t> p);
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  Chain(const sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& a);

 private:
  // The segments of one call and where each rank's data comes from and goes.
  struct Call;
  static constexpr std::size_t kSlots = 3;

  Call call_of(const cct_coll_args& a) const;
  void send_input(const Call& c, const std::byte* in);
  void relay(const Call& c, const std::byte* in);
  void receive(const Call& c, std::size_t s, std::byte* slots);
  void send(const Call& c, std::size_t s, const std::byte* seg);
  void wait_send(std::size_t s);
  void wait_sends(const Call& c);

  sdk::Comm comm_;
  std::size_t segment_;
  Scratch scratch_;  // kSlots segments
  std::array<cct_request, kSlots> recv_req_{};
  std::array<cct_request, kSlots> send_req_{};
};

}  // namespace cct::plugins::reduce
