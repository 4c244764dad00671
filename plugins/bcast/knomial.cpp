#include "bcast/knomial.hpp"

#include <algorithm>
#include <string>

#include "common/rooted.hpp"

namespace cct::plugins::bcast {
namespace {

void validate_radix(int64_t radix) {
  if (radix < 2) throw cct::sdk::Unsupported("radix " + std::to_string(radix) + " < 2");
}

// A radix beyond size gives the same flat tree as radix size; clamping keeps
// radix * level far from overflowing.
int64_t effective_radix(int64_t radix, int size) {
  validate_radix(radix);
  return std::min<int64_t>(radix, std::max(size, 2));
}

// The most children a rank can have: radix - 1 on each level of the tree.
std::size_t max_children(int64_t radix, int size) {
  std::size_t levels = 0;
  for (int64_t reach = 1; reach < size; reach *= radix) ++levels;
  return std::min<std::size_t>(levels * (radix - 1), size - 1);
}

// The edges of the tree rooted at rank 0 (vrank v to v + j m, 0 < j <
// radix, for v a multiple of radix m) that cross between the halves.
double crossings(int64_t radix, int size) {
  double crossing = 0;
  for (int64_t m = 1; m < size; m *= radix)
    for (int64_t j = 1; j < radix; ++j)
      crossing += cct::sdk::crossing_ranks(
          size, [&](int v) { return v % (radix * m) == 0 ? static_cast<int>(v + j * m) : -1; });
  return crossing;
}

}  // namespace

// ceil(log_radix p) levels. A level's radix - 1 sends leave together, so
// their latencies overlap but their bytes leave the sender one after
// another. The buffer crosses the halves on the tree's crossing edges.
cct_cost Knomial::cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                       std::span<const int64_t> params) {
  const int64_t radix = effective_radix(params[0], comm.size());
  const double levels = cct::sdk::steps_to_reach(comm.size(), radix);
  const double sends = std::min<double>(radix - 1, comm.size() - 1);
  const double bytes = rooted_bytes(args, comm.size());
  return cct::sdk::flat_cost(comm, levels, levels * sends * bytes)
      .cross(crossings(radix, comm.size()) * bytes);
}

void Knomial::check(const cct::sdk::Comm&, const cct_coll_args&, std::span<const int64_t> params) {
  validate_radix(params[0]);
}

Knomial::Knomial(const cct::sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm),
      radix_(effective_radix(params[0], comm.size())),
      sends_(max_children(radix_, comm.size())) {}

void Knomial::run(const cct_coll_args& args) {
  const std::size_t bytes = rooted_bytes(args, comm_.size());
  if (bytes == 0) return;
  const int64_t size = comm_.size();
  const int64_t vrank = to_virtual(comm_.rank(), args.root, comm_.size());
  // level: the place value of vrank's lowest non-zero base-radix digit (the
  // level it receives on), or for the root the first power of radix >= size.
  int64_t level = 1;
  while (level < size && vrank % (radix_ * level) == 0) level *= radix_;
  if (vrank != 0) {
    const int64_t parent = vrank - vrank % (radix_ * level);
    comm_.recv(args.recvbuf, bytes, to_real(parent, args.root, size), args.tag);
  }
  std::size_t posted = 0;
  for (int64_t m = level / radix_; m >= 1; m /= radix_) {
    for (int64_t child = vrank + m; child < size && child < vrank + radix_ * m; child += m)
      comm_.isend(args.recvbuf, bytes, to_real(child, args.root, size), args.tag, sends_[posted++]);
  }
  comm_.waitall(sends_.data(), posted);
}

}  // namespace cct::plugins::bcast
