// The ring's reduce-scatter on device memory, shared by the device
// allreduce and reduce_scatter_block.
#pragma once

#include <cstdint>

#include "cct/sdk/device.hpp"
#include "common/blocks.hpp"

namespace cct::plugins::device {

// The ring reduce-scatter over n blocks of acc (device memory, complete):
// step s sends block rank - s - 1 + `first` to the right and reduces block
// rank - s - 2 + `first` from the left into acc, through tmp (device, one
// block). After n - 1 steps this rank holds the whole reduction of block
// rank + first (mod n). Each step synchronizes before the next send: p2p
// reads device memory as it is, and the reduction is asynchronous.
inline void ring_reduce_scatter(const sdk::Comm& comm, const sdk::Device& device,
                                const Blocks& blocks, std::byte* acc, std::byte* tmp,
                                const cct_coll_args& a, int first) {
  const int n = comm.size();
  const auto block = [&](int shift) { return ((comm.rank() + shift + first) % n + n) % n; };
  const int right = (comm.rank() + 1) % n, left = (comm.rank() + n - 1) % n;
  for (int s = 0; s < n - 1; ++s) {
    const int out = block(-s - 1), in = block(-s - 2);
    comm.sendrecv(acc + blocks.offset(out), blocks.bytes(out), right, tmp, blocks.bytes(in), left,
                  a.tag);
    device.reduce(acc + blocks.offset(in), tmp, blocks.count(in), a.dtype, a.op);
    device.synchronize();
  }
}

}  // namespace cct::plugins::device
