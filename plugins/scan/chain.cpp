#include "scan/chain.hpp"

#include <algorithm>
#include <string>

#include "common/args.hpp"

namespace cct::plugins::scan {
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

template <cct_collective C>
struct Chain<C>::Call {
  const cct_coll_args& a;
  const std::byte* in;
  std::byte* out;
  std::size_t elem;
  std::size_t bytes;      // the whole vector
  std::size_t seg_bytes;  // a whole number of elements, at least one
  std::size_t nseg;
  int prev;  // the rank the prefix comes from, -1 on rank 0
  int next;  // the rank it goes on to, -1 on the last rank

  std::size_t offset(std::size_t s) const { return s * seg_bytes; }
  std::size_t length(std::size_t s) const { return std::min(seg_bytes, bytes - offset(s)); }
  std::size_t slot_bytes() const { return std::min(seg_bytes, bytes); }
};

// p - 2 + segments steps of one segment, as the first passes p - 1 links and
// the others follow a step apart. Each is combined on the way, at ranks 1 to
// p - 1 (exscan: p - 2), so those steps combine one segment too. The
// vector crosses the halves once, from rank p / 2 - 1 to p / 2.
template <cct_collective C>
cct_cost Chain<C>::cost(const sdk::Comm& comm, const cct_coll_args& args,
                        std::span<const int64_t> params) {
  const std::size_t bytes = args.count * elem_size(args);
  if (bytes == 0 || comm.size() < 2) return {};
  const std::size_t segment =
      std::min(segment_bytes(checked_segment(params), elem_size(args)), bytes);
  const double segments = static_cast<double>((bytes + segment - 1) / segment);
  const double steps = comm.size() - 2 + segments;
  const double combining = comm.size() - (C == CCT_SCAN ? 1 : 2);
  const double combines = combining > 0 ? combining - 1 + segments : 0;
  return sdk::flat_cost(comm, steps, steps * static_cast<double>(segment),
                        combines * static_cast<double>(segment))
      .cross(static_cast<double>(bytes));
}

template <cct_collective C>
void Chain<C>::check(const sdk::Comm&, const cct_coll_args&, std::span<const int64_t> params) {
  checked_segment(params);
}

template <cct_collective C>
Chain<C>::Chain(const sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm), segment_(checked_segment(params)) {}

template <cct_collective C>
void Chain<C>::run(const cct_coll_args& a) {
  if (a.count == 0) return;
  const Call c = call_of(a);
  if (c.prev < 0)
    head(c);
  else
    relay(c);
  wait_sends(c);
}

template <cct_collective C>
typename Chain<C>::Call Chain<C>::call_of(const cct_coll_args& a) const {
  const int n = comm_.size(), rank = comm_.rank();
  const std::size_t elem = elem_size(a);
  const std::size_t seg_bytes = segment_bytes(segment_, elem);
  return Call{.a = a,
              .in = input_of(a),
              .out = output_of(a),
              .elem = elem,
              .bytes = a.count * elem,
              .seg_bytes = seg_bytes,
              .nseg = (a.count * elem + seg_bytes - 1) / seg_bytes,
              .prev = rank - 1,
              .next = rank + 1 < n ? rank + 1 : -1};
}

// Rank 0's prefix is its input alone (scan: also its result), sent on as it
// is, kSlots segments in flight.
template <cct_collective C>
void Chain<C>::head(const Call& c) {
  if (C == CCT_SCAN) copy_bytes(c.out, c.in, c.bytes);
  if (c.next < 0) return;
  for (std::size_t s = 0; s < c.nseg; ++s) {
    if (s >= kSlots) wait_send(s - kSlots);
    send(c, s, c.in + c.offset(s));
  }
}

// Segment s + 1 is being received while segment s is combined and segment
// s - 1 sent, each in a slot of its own.
template <cct_collective C>
void Chain<C>::relay(const Call& c) {
  std::byte* slots = scratch_.get((C == CCT_SCAN ? 1 : 2) * kSlots * c.slot_bytes());
  receive(c, 0, slots);
  for (std::size_t s = 0; s < c.nseg; ++s) {
    if (s + 1 < c.nseg) receive(c, s + 1, slots);
    if (c.next >= 0 && s >= kSlots) wait_send(s - kSlots);
    comm_.waitall(&recv_req_[s % kSlots], 1);
    combine(c, s, slots);
  }
}

// Segment s of the prefix is where receive put it, lower ranks' data on the
// left. Scan: the result is prefix op input, and it is what goes on.
// Exscan: the prefix is the result, and prefix op input goes on from a slot
// among the next kSlots (computed first: in place, the input is the
// result's buffer).
template <cct_collective C>
void Chain<C>::combine(const Call& c, std::size_t s, std::byte* slots) {
  const std::size_t count = c.length(s) / c.elem;
  const std::byte* prefix = received(c, s, slots);
  std::byte* result = c.out + c.offset(s);
  const std::byte* input = c.in + c.offset(s);
  if constexpr (C == CCT_SCAN) {
    sdk::reduce_into(result, prefix, input, count, c.a.dtype, c.a.op);
    if (c.next >= 0) send(c, s, result);
  } else {
    if (c.next >= 0) {
      std::byte* carry = slots + (kSlots + s % kSlots) * c.slot_bytes();
      sdk::reduce_into(carry, prefix, input, count, c.a.dtype, c.a.op);
      send(c, s, carry);
    }
    if (prefix != result) copy_bytes(result, prefix, c.length(s));
  }
}

// Exscan's received prefix is its result: out of place it goes straight
// there, which saves a pass over the vector (the whole cost on 2 ranks).
// Otherwise it waits in its slot among the first kSlots.
template <cct_collective C>
std::byte* Chain<C>::received(const Call& c, std::size_t s, std::byte* slots) const {
  if (C == CCT_EXSCAN && c.in != c.out) return c.out + c.offset(s);
  return slots + s % kSlots * c.slot_bytes();
}

template <cct_collective C>
void Chain<C>::receive(const Call& c, std::size_t s, std::byte* slots) {
  comm_.irecv(received(c, s, slots), c.length(s), c.prev, c.a.tag, recv_req_[s % kSlots]);
}

template <cct_collective C>
void Chain<C>::send(const Call& c, std::size_t s, const std::byte* seg) {
  comm_.isend(seg, c.length(s), c.next, c.a.tag, send_req_[s % kSlots]);
}

template <cct_collective C>
void Chain<C>::wait_send(std::size_t s) {
  comm_.waitall(&send_req_[s % kSlots], 1);
}

// The sends not yet waited for: the last kSlots segments.
template <cct_collective C>
void Chain<C>::wait_sends(const Call& c) {
  if (c.next < 0) return;
  for (std::size_t s = c.nseg > kSlots ? c.nseg - kSlots : 0; s < c.nseg; ++s) wait_send(s);
}

template class Chain<CCT_SCAN>;
template class Chain<CCT_EXSCAN>;

}  // namespace cct::plugins::scan
