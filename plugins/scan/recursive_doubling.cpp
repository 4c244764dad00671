#include "scan/recursive_doubling.hpp"

#include "common/args.hpp"

namespace cct::plugins::scan {

template <cct_collective C>
RecursiveDoubling<C>::RecursiveDoubling(const sdk::Comm& comm, std::span<const int64_t>)
    : comm_(comm) {}

// `partial` is the reduction of the ranks this rank has heard of so far,
// itself included: lower ranks' data always on the left. The result is the
// same run without this rank's own input on exscan, which starts empty
// (`has_result` false) and takes the first lower contribution as it is.
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
    comm_.sendrecv(partial, bytes, peer, tmp, bytes, peer, a.tag);
    if (peer > me) {  // higher ranks' data: only the partial that goes on grows
      sdk::reduce_into(partial, partial, tmp, a.count, a.dtype, a.op);
      continue;
    }
    sdk::reduce_into(partial, tmp, partial, a.count, a.dtype, a.op);
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
