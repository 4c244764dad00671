// The engine of the HPL ring broadcasts: one rank's part of a pipelined
// relay. The buffer is cut into segments; a rank waits for segment i from
// its predecessor, asks for segment i + 1, and passes segment i to each of
// its successors (up to three: the root of a modified or two-ring layout
// feeds several chain heads), in the order given, so the first successor
// (HPL's next panel owner in the modified variants) is served first.
//
// `segment` is the tuned parameter shared by all ring variants: small
// segments fill the pipeline sooner (the last rank of a ring of p waits
// about (p - 1) segments plus the message), large ones pay fewer per-message
// costs; 0 sends the whole buffer as one message, as HPL itself does.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "cct/sdk/algorithm.hpp"
#include "hpl_bcast/ring_layout.hpp"

namespace cct::plugins::hpl {

inline constexpr std::array<int64_t, 4> kSegmentCandidates{0, 16 << 10, 64 << 10, 256 << 10};
inline constexpr cct_param_desc kSegmentParam{
    .name = "segment",
    .doc = "bytes per pipelined message, 0 = the whole buffer at once",
    .type = CCT_PARAM_BYTES,
    .default_value = 64 << 10,
    .candidates = kSegmentCandidates.data(),
    .ncandidates = kSegmentCandidates.size(),
    .lo = 0,
    .hi = 0,
    .step = 0,
    .step_kind = CCT_STEP_ADD,
};

// Throws Unsupported for a negative segment; returns it in bytes.
std::size_t validate_segment(int64_t segment);

class SegmentRelay {
 public:
  // The cost shape of a call along `shape` (cct/sdk/cost.hpp).
  static cct_cost cost(RingShape shape, const sdk::Comm& comm, const cct_coll_args& args,
                       int64_t segment);
  SegmentRelay(const sdk::Comm& comm, int64_t segment);
  // Broadcasts the call's buffer along `shape` from args.root.
  void run(RingShape shape, const cct_coll_args& args);

 private:
  // One call's view: the buffer, its segments and this rank's real
  // neighbours (prev -1 at the root).
  struct Route {
    std::byte* buf;
    std::size_t bytes;
    std::size_t segment;
    std::size_t segments;
    int prev;
    std::array<int, 3> next;
    int nnext;
  };

  Route route(RingShape shape, const cct_coll_args& args) const;
  std::byte* start(const Route& r, std::size_t i) const;
  std::size_t length(const Route& r, std::size_t i) const;
  void post_receive(const Route& r, std::size_t i, uint32_t tag);
  void forward(const Route& r, std::size_t i, uint32_t tag);
  void finish(const Route& r);

  sdk::Comm comm_;
  std::size_t segment_;
  // Segment i uses slot i % 2: one receive runs ahead of the segment being
  // forwarded, and each successor's send overlaps the next one.
  std::array<cct_request, 2> receives_{};
  std::array<std::array<cct_request, 3>, 2> sends_{};
};

}  // namespace cct::plugins::hpl
