// Who passes the buffer to whom in HPL's ring broadcasts, on virtual ranks
// (the root is 0, the others follow it cyclically; see common/rooted.hpp).
//
// Every ring variant is the root feeding the heads of up to three chains of
// consecutive virtual ranks; inside a chain each rank receives from the one
// before it and forwards to the one after it:
//   1ring   [1, p-1]                       one increasing ring
//   1ringM  [1, 1], [2, p-1]               the next rank is served alone, first
//   2ring   [1, h], [h+1, p-1]             two rings over the two halves
//   2ringM  [1, 1], [2, h'], [h'+1, p-1]   both
// (h, h': the first half gets the odd rank). Pure arithmetic on ints, so the
// unit tests check the shapes directly.
#pragma once

#include <algorithm>
#include <array>

namespace cct::plugins::hpl {

enum class RingShape { kOne, kOneModified, kTwo, kTwoModified };

// Virtual ranks first..last, in forwarding order.
struct Chain {
  int first;
  int last;
};

struct RingLayout {
  std::array<Chain, 3> chains{};
  int count = 0;  // chains in use; empty ones are never listed

  void add(int first, int last) {
    if (first <= last) chains[count++] = Chain{first, last};
  }
  // [first, last] as two chains, the first one the longer when odd.
  void add_halves(int first, int last) {
    const int split = first + (last - first + 2) / 2;
    add(first, split - 1);
    add(split, last);
  }
};

inline RingLayout ring_layout(RingShape shape, int size) {
  RingLayout layout;
  const bool modified = shape == RingShape::kOneModified || shape == RingShape::kTwoModified;
  const int first = modified ? 2 : 1;
  if (modified) layout.add(1, std::min(1, size - 1));
  if (shape == RingShape::kOne || shape == RingShape::kOneModified)
    layout.add(first, size - 1);
  else
    layout.add_halves(first, size - 1);
  return layout;
}

// One rank's place in a layout, in virtual ranks: where its data comes from
// (-1 at the root) and where it goes, in sending order.
struct RingLinks {
  int prev = -1;
  std::array<int, 3> next{};
  int nnext = 0;
};

inline RingLinks ring_links(const RingLayout& layout, int vrank) {
  RingLinks links;
  for (int c = 0; c < layout.count; ++c) {
    const Chain& chain = layout.chains[c];
    if (vrank == 0) {
      links.next[links.nnext++] = chain.first;
    } else if (vrank >= chain.first && vrank <= chain.last) {
      links.prev = vrank == chain.first ? 0 : vrank - 1;
      if (vrank < chain.last) links.next[links.nnext++] = vrank + 1;
    }
  }
  return links;
}

}  // namespace cct::plugins::hpl
