#include "scan/recursive_doubling.hpp"

#include "common/args.hpp"

namespace cct::plugins::scan {
namespace {

// Whether rank `me`'s partial still goes to a peer at some step after step
// d: only then must what a higher peer sends at step d be folded into it.
// Without this test both ranks of the last steps would swap whole vectors
// that one of them throws away; on 2 ranks that doubles the traffic.
bool sends_after(int me, int d, int n) {
  for (int later = 2 * d; later < n; later *= 2)
    if ((me ^ later) < n) return true;
  return false;
}

// The messages of run() that cross the halves: at step d, rank r sends to
// r ^ d (below p) if r is the lower of the two, or if the lower one's
// partial goes to a peer after step d.
double crossings(int n) {
  double messages = 0;
  for (int d = 1; d < n; d *= 2)
    messages += sdk::crossing_ranks(n, [&](int r) {
      const int peer = r ^ d;
      return peer > r || sends_after(peer, d, n) ? peer : -1;
    });
  return messages;
}

}  // namespace

// ceil(log2 p) steps of the whole vector. The top rank receives at every
// step and combines what came into its result (exscan copies the first)
// and, at every step but the last, into its partial too. Across the
// halves: the vectors of the steps' crossing pairs, the lower rank's always
// and the higher one's where the lower one's partial goes on.
template <cct_collective C>
cct_cost RecursiveDoubling<C>::cost(const sdk::Comm& comm, const cct_coll_args& args,
                                    std::span<const int64_t>) {
  if (comm.size() < 2) return {};
  const double bytes = sdk::bytes_of(args, args.count);
  const double steps = sdk::steps_to_reach(comm.size(), 2);
  const double combines = 2 * steps - 1 - (C == CCT_EXSCAN ? 1 : 0);
  return sdk::flat_cost(comm, steps, steps * bytes, combines * bytes)
      .cross(crossings(comm.size()) * bytes);
}

template <cct_collective C>
RecursiveDoubling<C>::RecursiveDoubling(const sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm) {}

// `partial` is the reduction of the ranks this rank has heard of so far,
// itself included: lower ranks' data always on the left. The result is the
// same run without this rank's own input on exscan, which starts empty
// (`has_result` false) and takes the first lower contribution as it is.
// At each step the lower rank of a pair always sends (the higher one adds
// it to its result); the higher one sends only if the lower one's partial
// goes on later.
template <cct_collective C>
void RecursiveDoubling<C>::run(const cct_coll_args& a) {
  const std::size_t bytes = a.count * elem_size(a);
  const int me = comm_.rank(), n = comm_.size();
  std::byte* partial = partial_.get(bytes);
  std::byte* tmp = tmp_.get(bytes);
  std::byte* result = output_of(a);
  copy_bytes(partial, input_of(a), bytes);
  bool has_result = C == CCT_SCAN;
  if (has_result) copy_bytes(result, partial, bytes);
  for (int d = 1; d < n; d *= 2) {
    const int peer = me ^ d;
    if (peer >= n) continue;
    const bool keeps_partial = sends_after(me, d, n);
    if (peer > me) {  // higher ranks' data: only the partial that goes on grows
      if (!keeps_partial) {
        comm_.send(partial, bytes, peer, a.tag);
        continue;
      }
      comm_.sendrecv(partial, bytes, peer, tmp, bytes, peer, a.tag);
      sdk::reduce_into(partial, partial, tmp, a.count, a.dtype, a.op);
      continue;
    }
    if (sends_after(peer, d, n))
      comm_.sendrecv(partial, bytes, peer, tmp, bytes, peer, a.tag);
    else
      comm_.recv(tmp, bytes, peer, a.tag);
    if (keeps_partial) sdk::reduce_into(partial, tmp, partial, a.count, a.dtype, a.op);
    if (has_result)
      sdk::reduce_into(result, tmp, result, a.count, a.dtype, a.op);
    else
      copy_bytes(result, tmp, bytes);
    has_result = true;
  }
}

template class RecursiveDoubling<CCT_SCAN>;
template class RecursiveDoubling<CCT_EXSCAN>;

}  // namespace cct::plugins::scan
