#include "hpl_bcast/segment_relay.hpp"

#include <algorithm>
#include <string>

#include "common/rooted.hpp"

namespace cct::plugins::hpl {

std::size_t validate_segment(int64_t segment) {
  if (segment < 0) throw sdk::Unsupported("segment " + std::to_string(segment) + " < 0");
  return static_cast<std::size_t>(segment);
}

namespace {

// The pieces of `bytes` as the relay sends them: `segment`, or the whole
// buffer for 0.
std::size_t segment_of(std::size_t segment, std::size_t bytes) {
  return segment == 0 ? bytes : std::min(segment, bytes);
}

// The links of `layout` on `size` ranks, root 0 (virtual ranks are real
// ones), that cross the halves: each rank's t-th successor, t < 3.
double crossing_links(const RingLayout& layout, int size) {
  double links = 0;
  for (int t = 0; t < 3; ++t)
    links += sdk::crossing_ranks(size, [&](int r) {
      const RingLinks out = ring_links(layout, r);
      return t < out.nnext ? out.next[t] : -1;
    });
  return links;
}

}  // namespace

// A pipeline of s segments over the longest chain's L links (the root's
// included) takes L - 1 + s steps of one segment; the root sends each
// segment to every chain head, one after another, in each of its s steps.
// The buffer crosses the halves on each of the layout's crossing links
// (root 0).
cct_cost SegmentRelay::cost(RingShape shape, const sdk::Comm& comm, const cct_coll_args& args,
                            int64_t segment) {
  const std::size_t bytes = rooted_bytes(args, comm.size());
  if (bytes == 0 || comm.size() < 2) return {};
  const std::size_t piece = segment_of(validate_segment(segment), bytes);
  const double segments = static_cast<double>((bytes + piece - 1) / piece);
  const RingLayout layout = ring_layout(shape, comm.size());
  int links = 0;
  for (int c = 0; c < layout.count; ++c)
    links = std::max(links, layout.chains[c].last - layout.chains[c].first + 1);
  return sdk::flat_cost(comm, links - 1 + segments,
                        (links - 1 + segments * layout.count) * static_cast<double>(piece))
      .cross(crossing_links(layout, comm.size()) * static_cast<double>(bytes));
}

SegmentRelay::SegmentRelay(const sdk::Comm& comm, int64_t segment)
    : comm_(comm), segment_(validate_segment(segment)) {}

void SegmentRelay::run(RingShape shape, const cct_coll_args& args) {
  if (rooted_bytes(args, comm_.size()) == 0) return;
  const Route r = route(shape, args);
  post_receive(r, 0, args.tag);
  for (std::size_t i = 0; i < r.segments; ++i) forward(r, i, args.tag);
  finish(r);
}

SegmentRelay::Route SegmentRelay::route(RingShape shape, const cct_coll_args& args) const {
  const int size = comm_.size();
  const std::size_t bytes = args.count * elem_size(args);
  const std::size_t segment = segment_of(segment_, bytes);
  const RingLinks links =
      ring_links(ring_layout(shape, size), to_virtual(comm_.rank(), args.root, size));
  Route r{.buf = static_cast<std::byte*>(args.recvbuf),
          .bytes = bytes,
          .segment = segment,
          .segments = (bytes + segment - 1) / segment,
          .prev = links.prev < 0 ? -1 : to_real(links.prev, args.root, size),
          .next = {},
          .nnext = links.nnext};
  for (int t = 0; t < links.nnext; ++t) r.next[t] = to_real(links.next[t], args.root, size);
  return r;
}

std::byte* SegmentRelay::start(const Route& r, std::size_t i) const {
  return r.buf + i * r.segment;
}

std::size_t SegmentRelay::length(const Route& r, std::size_t i) const {
  return std::min(r.segment, r.bytes - i * r.segment);
}

void SegmentRelay::post_receive(const Route& r, std::size_t i, uint32_t tag) {
  if (r.prev >= 0 && i < r.segments)
    comm_.irecv(start(r, i), length(r, i), r.prev, tag, receives_[i % 2]);
}

// Waits for segment i, asks for segment i + 1, and passes segment i on to
// each successor once that successor's send of segment i - 2 (the last user
// of the slot) is done.
void SegmentRelay::forward(const Route& r, std::size_t i, uint32_t tag) {
  if (r.prev >= 0) {
    comm_.waitall(&receives_[i % 2], 1);
    post_receive(r, i + 1, tag);
  }
  auto& slot = sends_[i % 2];
  if (i >= 2) comm_.waitall(slot.data(), r.nnext);
  for (int t = 0; t < r.nnext; ++t) comm_.isend(start(r, i), length(r, i), r.next[t], tag, slot[t]);
}

void SegmentRelay::finish(const Route& r) {
  const std::size_t in_flight = std::min<std::size_t>(r.segments, 2);
  for (std::size_t i = r.segments - in_flight; i < r.segments; ++i)
    comm_.waitall(sends_[i % 2].data(), r.nnext);
}

}  // namespace cct::plugins::hpl
