#include "reduce/binomial.hpp"

#include "common/args.hpp"
#include "common/rooted.hpp"

namespace cct::plugins::reduce {

// ceil(log2 p) rounds, each receiving and combining a whole vector: the
// root waits for every round. The vector crosses the halves on the tree's
// crossing edges (counted with the root at rank 0).
cct_cost Binomial::cost(const sdk::Comm& comm, const cct_coll_args& args,
                        std::span<const int64_t>) {
  const double rounds = binomial_depth(comm.size());
  const double vector = static_cast<double>(rooted_bytes(args, comm.size()));
  const double bytes = rounds * vector;
  return sdk::flat_cost(comm, rounds, bytes, bytes).cross(binomial_crossings(comm.size()) * vector);
}

Binomial::Binomial(const sdk::Comm& comm, std::span<const int64_t>) : comm_(comm) {}

// Virtual rank v = (rank - root) mod n receives from v + mask for each mask
// below its lowest set bit, then sends to v - (lowest set bit). A leaf
// forwards its input untouched.
void Binomial::run(const cct_coll_args& a) {
  const int n = comm_.size();
  const std::size_t bytes = rooted_bytes(a, n);
  if (bytes == 0) return;
  const int vrank = to_virtual(comm_.rank(), a.root, n);
  const std::byte* data = input_of(a);
  for (int mask = 1; mask < n; mask <<= 1) {
    if (vrank & mask) {
      comm_.send(data, bytes, to_real(vrank - mask, a.root, n), a.tag);
      return;
    }
    if (vrank + mask < n) data = add_child(a, bytes, data, to_real(vrank + mask, a.root, n));
  }
  copy_bytes(output_of(a), data, bytes);
}

// Reduces a child's partial result into acc (recvbuf at the root, scratch
// elsewhere), which starts as `data`, and returns acc.
const std::byte* Binomial::add_child(const cct_coll_args& a, std::size_t bytes,
                                     const std::byte* data, int child) {
  const bool root = comm_.rank() == a.root;
  std::byte* acc = root ? output_of(a) : scratch_.get(2 * bytes);
  std::byte* tmp = root ? scratch_.get(bytes) : acc + bytes;
  copy_bytes(acc, data, bytes);
  comm_.recv(tmp, bytes, child, a.tag);
  sdk::reduce_local(acc, tmp, a.count, a.dtype, a.op);
  return acc;
}

}  // namespace cct::plugins::reduce
