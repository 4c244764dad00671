#include "reduce/chain.hpp"

#include <algorithm>
#include <string>

#include "common/args.hpp"
#include "common/rooted.hpp"

namespace cct::plugins::reduce {
namespace {

std::size_t checked_segment(std::span<const int64_t> params) {
  if (params[0] < 1) throw sdk::Unsupported("segment " + std::to_string(params[0]) + " < 1");
  return static_cast<std::size_t>(params[0]);
}

// A segment: a whole number of elements, at least one.
std::size_t segment_bytes(std::size_t segment, std::size_t elem) {
  return std::max<std::size_t>(1, segment / elem) * elem;
}

}  // namespace

struct Chain::Call {
  const cct_coll_args& a;
  std::size_t elem;
  std::size_t bytes;      // the whole vector
  std::size_t seg_bytes;  // a whole number of elements, at least one
  std::size_t nseg;
  int child;   // the rank segments come from, -1 at the far end
  int parent;  // the rank they go to, -1 at the root

  std::size_t offset(std::size_t s) const { return s * seg_bytes; }
  std::size_t length(std::size_t s) const { return std::min(seg_bytes, bytes - offset(s)); }
  std::size_t slot_bytes() const { return std::min(seg_bytes, bytes); }
};

// The first segment passes p - 1 links, combined at each rank it reaches;
// the others follow one step behind each other: p - 2 + segments steps that
// each send and combine one segment. The vector crosses the halves once,
// on the link from rank p / 2 to p / 2 - 1 (root 0).
cct_cost Chain::cost(const sdk::Comm& comm, const cct_coll_args& args,
                     std::span<const int64_t> params) {
  const std::size_t bytes = rooted_bytes(args, comm.size());
  if (bytes == 0 || comm.size() < 2) return {};
  const std::size_t segment =
      std::min(segment_bytes(checked_segment(params), elem_size(args)), bytes);
  const double steps = comm.size() - 2 + static_cast<double>((bytes + segment - 1) / segment);
  const double moved = steps * static_cast<double>(segment);
  return sdk::flat_cost(comm, steps, moved, moved).cross(static_cast<double>(bytes));
}

void Chain::check(const sdk::Comm&, const cct_coll_args&, std::span<const int64_t> params) {
  checked_segment(params);
}

Chain::Chain(const sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm), segment_(checked_segment(params)) {}

void Chain::run(const cct_coll_args& a) {
  const std::size_t bytes = rooted_bytes(a, comm_.size());
  if (bytes == 0) return;
  const std::byte* in = input_of(a);
  if (comm_.size() == 1) {
    copy_bytes(output_of(a), in, bytes);
    return;
  }
  const Call c = call_of(a);
  if (c.child < 0)
    send_input(c, in);
  else
    relay(c, in);
  wait_sends(c);
}

Chain::Call Chain::call_of(const cct_coll_args& a) const {
  const int n = comm_.size(), rank = comm_.rank();
  const int vrank = to_virtual(rank, a.root, n);
  const std::size_t elem = elem_size(a);
  const std::size_t seg_bytes = segment_bytes(segment_, elem);
  return Call{.a = a,
              .elem = elem,
              .bytes = a.count * elem,
              .seg_bytes = seg_bytes,
              .nseg = (a.count * elem + seg_bytes - 1) / seg_bytes,
              .child = vrank + 1 < n ? (rank + 1) % n : -1,
              .parent = vrank > 0 ? (rank - 1 + n) % n : -1};
}

// The far end of the chain sends its input as it is, kSlots segments in
// flight.
void Chain::send_input(const Call& c, const std::byte* in) {
  for (std::size_t s = 0; s < c.nseg; ++s) {
    if (s >= kSlots) wait_send(s - kSlots);
    send(c, s, in + c.offset(s));
  }
}

// Segment s + 1 is being received while segment s is reduced and segment
// s - 1 sent, each in its own slot. A middle rank reduces its input into the
// received segment and sends that on; the root reduces into recvbuf.
void Chain::relay(const Call& c, const std::byte* in) {
  std::byte* slots = scratch_.get(kSlots * c.slot_bytes());
  std::byte* out = output_of(c.a);
  receive(c, 0, slots);
  for (std::size_t s = 0; s < c.nseg; ++s) {
    if (s + 1 < c.nseg) {
      if (c.parent >= 0 && s + 1 >= kSlots) wait_send(s + 1 - kSlots);
      receive(c, s + 1, slots);
    }
    comm_.waitall(&recv_req_[s % kSlots], 1);
    std::byte* seg = slots + s % kSlots * c.slot_bytes();
    const std::size_t count = c.length(s) / c.elem;
    if (c.parent >= 0) {
      sdk::reduce_local(seg, in + c.offset(s), count, c.a.dtype, c.a.op);
      send(c, s, seg);
    } else {
      copy_bytes(out + c.offset(s), in + c.offset(s), c.length(s));
      sdk::reduce_local(out + c.offset(s), seg, count, c.a.dtype, c.a.op);
    }
  }
}

void Chain::receive(const Call& c, std::size_t s, std::byte* slots) {
  comm_.irecv(slots + s % kSlots * c.slot_bytes(), c.length(s), c.child, c.a.tag,
              recv_req_[s % kSlots]);
}

void Chain::send(const Call& c, std::size_t s, const std::byte* seg) {
  comm_.isend(seg, c.length(s), c.parent, c.a.tag, send_req_[s % kSlots]);
}

void Chain::wait_send(std::size_t s) {
  comm_.waitall(&send_req_[s % kSlots], 1);
}

// The sends not yet waited for: the last kSlots segments.
void Chain::wait_sends(const Call& c) {
  if (c.parent < 0) return;
  for (std::size_t s = c.nseg > kSlots ? c.nseg - kSlots : 0; s < c.nseg; ++s) wait_send(s);
}

}  // namespace cct::plugins::reduce
