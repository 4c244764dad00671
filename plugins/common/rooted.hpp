// Rooted collectives (bcast, gather, scatter, reduce): the checked size of a call,
// ranks renumbered around the root, and the binomial tree built on them.
#pragma once

#include <bit>
#include <cstddef>
#include <stdexcept>

#include "cct/sdk/cost.hpp"
#include "common/args.hpp"

namespace cct::plugins {

// Throws std::invalid_argument (reported as CCT_ERR_INVALID_ARG) for a root
// outside the communicator, before any message is posted.
inline void check_root(int root, int size) {
  if (root < 0 || root >= size) throw std::invalid_argument("root out of range");
}

// Bytes of the call's `count` elements (a bcast's buffer, one rank's block
// of a gather or scatter), once the root and the datatype are checked.
inline std::size_t rooted_bytes(const cct_coll_args& a, int size) {
  check_root(a.root, size);
  return a.count * elem_size(a);
}

// Virtual rank: the root is 0, the others follow it cyclically. Trees are
// built on virtual ranks, so every root gets the same shape.
inline int to_virtual(int rank, int root, int size) {
  return (rank - root + size) % size;
}
inline int to_real(int vrank, int root, int size) {
  return (vrank + root) % size;
}

// In the binomial tree on virtual ranks, vrank's parent is vrank minus its
// lowest set bit, its children are vrank + m for the powers of two m below
// that bit, and its subtree is [vrank, min(vrank + span, size)). span is the
// lowest set bit, or for the root the smallest power of two >= size.
inline int binomial_span(int vrank, int size) {
  return vrank == 0 ? static_cast<int>(std::bit_ceil(static_cast<unsigned>(size))) : vrank & -vrank;
}

// Depth of the binomial tree: ceil(log2 size), the most children a rank has.
inline int binomial_depth(int size) {
  return static_cast<int>(std::bit_width(static_cast<unsigned>(size - 1)));
}

// The cost of moving each other rank's block of `bytes` to or from the
// root (a gather's or a scatter's, linear or down a tree): `messages`
// latencies, the p - 1 blocks reaching or leaving the root one after
// another; across the halves, each upper-half block once (root at rank 0).
inline sdk::CostShape root_blocks_cost(const sdk::Comm& comm, double messages, double bytes) {
  return sdk::flat_cost(comm, messages, (comm.size() - 1.0) * bytes)
      .cross(sdk::upper_half(comm.size()) * bytes);
}

// The edges of the binomial tree rooted at rank 0 (vrank v to v + m, for v
// a multiple of 2m) that cross between the communicator's halves: the
// messages of a whole-buffer tree that cct_cost.bisection_bytes counts.
// With a power of two, the root's first send alone.
inline double binomial_crossings(int size) {
  double crossings = 0;
  for (int m = 1; m < size; m *= 2)
    crossings += sdk::crossing_ranks(size, [&](int v) { return v % (2 * m) == 0 ? v + m : -1; });
  return crossings;
}

}  // namespace cct::plugins
