#include "bcast/chain.hpp"

#include <algorithm>
#include <string>

#include "common/rooted.hpp"

namespace cct::plugins::bcast {
namespace {

std::size_t validate_segment(int64_t segment) {
  if (segment < 1) throw cct::sdk::Unsupported("segment " + std::to_string(segment) + " < 1");
  return static_cast<std::size_t>(segment);
}

}  // namespace

// The first segment passes p - 1 links, the others follow one step behind
// each other: p - 2 + segments steps of one segment each. The buffer
// crosses the halves once, on the link into rank p / 2.
cct_cost Chain::cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                     std::span<const int64_t> params) {
  const std::size_t bytes = rooted_bytes(args, comm.size());
  if (bytes == 0 || comm.size() < 2) return {};
  const std::size_t segment = std::min(validate_segment(params[0]), bytes);
  const double steps = comm.size() - 2 + static_cast<double>((bytes + segment - 1) / segment);
  return cct::sdk::flat_cost(comm, steps, steps * static_cast<double>(segment))
      .cross(static_cast<double>(bytes));
}

void Chain::check(const cct::sdk::Comm&, const cct_coll_args&, std::span<const int64_t> params) {
  validate_segment(params[0]);
}

Chain::Chain(const cct::sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm), segment_(validate_segment(params[0])) {}

std::size_t Chain::length(const Link& link, std::size_t segment) const {
  return std::min(segment_, link.bytes - segment * segment_);
}

std::byte* Chain::start(const Link& link, std::size_t segment) const {
  return link.buf + segment * segment_;
}

void Chain::run(const cct_coll_args& args) {
  const std::size_t bytes = rooted_bytes(args, comm_.size());
  if (bytes == 0) return;
  const int size = comm_.size();
  const int vrank = to_virtual(comm_.rank(), args.root, size);
  const Link link{.buf = static_cast<std::byte*>(args.recvbuf),
                  .bytes = bytes,
                  .segments = (bytes + segment_ - 1) / segment_,
                  .prev = vrank > 0 ? to_real(vrank - 1, args.root, size) : -1,
                  .next = vrank + 1 < size ? to_real(vrank + 1, args.root, size) : -1};
  post_receive(link, 0, args.tag);
  for (std::size_t i = 0; i < link.segments; ++i) forward(link, i, args.tag);
  if (link.next < 0) return;
  const std::size_t in_flight = std::min<std::size_t>(link.segments, 2);
  for (std::size_t i = link.segments - in_flight; i < link.segments; ++i)
    comm_.waitall(&sends_[i % 2], 1);
}

void Chain::post_receive(const Link& link, std::size_t segment, uint32_t tag) {
  if (link.prev >= 0 && segment < link.segments)
    comm_.irecv(start(link, segment), length(link, segment), link.prev, tag,
                receives_[segment % 2]);
}

// Waits for segment i, asks for segment i + 1, and passes segment i on once
// the send of segment i - 2 (the last user of its slot) is done.
void Chain::forward(const Link& link, std::size_t segment, uint32_t tag) {
  if (link.prev >= 0) {
    comm_.waitall(&receives_[segment % 2], 1);
    post_receive(link, segment + 1, tag);
  }
  if (link.next < 0) return;
  if (segment >= 2) comm_.waitall(&sends_[segment % 2], 1);
  comm_.isend(start(link, segment), length(link, segment), link.next, tag, sends_[segment % 2]);
}

}  // namespace cct::plugins::bcast
