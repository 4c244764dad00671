// Pipelined chain broadcast.
//
// The ranks form a chain from the root (in virtual rank order) and the
// buffer flows down it in segments: a rank forwards segment i while it
// receives segment i + 1. Once the pipeline is full every link is busy, so a
// large buffer arrives everywhere in about (n + (p - 2) * segment) / bandwidth,
// nearly independent of p: the best large-message broadcast when latency is
// small next to the transfer (shared memory, one node). Its p - 1 hops of
// latency make it the worst choice for small messages. `segment` trades the
// pipeline fill (smaller is better) against per-message overhead (larger is
// better).
#pragma once

#include <array>
#include <cstddef>
#include <span>

#include "cct/sdk/algorithm.hpp"

namespace cct::plugins::bcast {

class Chain {
 public:
  static constexpr cct::sdk::Info info{
      .name = "chain",
      .doc = "pipelined chain from the root, the buffer cut into segments",
      .collective = CCT_BCAST,
      .required_caps = CCT_CAP_P2P,
  };
  static constexpr std::array<int64_t, 4> kSegmentCandidates{8 << 10, 32 << 10, 128 << 10,
                                                             512 << 10};
  static constexpr std::array<cct_param_desc, 1> params{{{
      .name = "segment",
      .doc = "bytes per pipelined message",
      .type = CCT_PARAM_BYTES,
      .default_value = 32 << 10,
      .candidates = kSegmentCandidates.data(),
      .ncandidates = kSegmentCandidates.size(),
      .lo = 0,
      .hi = 0,
      .step = 0,
      .step_kind = CCT_STEP_ADD,
  }}};

  static void check(const cct::sdk::Comm& comm, const cct_coll_args& args,
                    std::span<const int64_t> params);
  // The cost shape of a call (cct/sdk/cost.hpp).
  static cct_cost cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params);
  Chain(const cct::sdk::Comm& comm, std::span<const int64_t> params);
  void run(const cct_coll_args& args);

 private:
  // One call's view of the chain: this rank's neighbours and the segments.
  struct Link {
    std::byte* buf;
    std::size_t bytes;
    std::size_t segments;
    int prev;  // -1 at the head of the chain (the root)
    int next;  // -1 at its tail
  };

  std::size_t length(const Link& link, std::size_t segment) const;
  std::byte* start(const Link& link, std::size_t segment) const;
  void post_receive(const Link& link, std::size_t segment, uint32_t tag);
  void forward(const Link& link, std::size_t segment, uint32_t tag);

  cct::sdk::Comm comm_;
  std::size_t segment_;
  // Double buffering of requests: segment i uses slot i % 2, so one receive
  // runs ahead of the one being forwarded and one send overlaps the next.
  std::array<cct_request, 2> receives_{};
  std::array<cct_request, 2> sends_{};
};

}  // namespace cct::plugins::bcast
