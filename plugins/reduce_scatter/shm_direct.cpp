#include "reduce_scatter/shm_direct.hpp"

#include <bit>
#include <cstring>

#include "common/args.hpp"
#include "common/chunks.hpp"
#include "common/crossings.hpp"

namespace cct::plugins::reduce_scatter {
namespace {

constexpr std::size_t kFirstSlot = 64 << 10;  // the region a plan starts with, per rank

}  // namespace

// A rank waits for every peer's done flag, copies all but its own block
// into its slot, then waits for every peer's arrived flag and combines its
// block from each peer's slot: 2 (p - 1) waits in a row. Across the halves:
// each rank's block of every slot of the other half, as in an alltoall.
template <cct_collective C>
cct_cost ShmDirect<C>::cost(const sdk::Comm& comm, const cct_coll_args& args,
                            std::span<const int64_t>) {
  const int n = comm.size();
  const std::size_t total = RankBlocks().of(args, n).total_bytes();
  if (n < 2 || total == 0) return {};
  const double others = static_cast<double>(total) * (n - 1) / n;
  return sdk::CostShape()
      .send(sdk::outer_span(comm), 2 * (n - 1), 0)
      .reduce(others)
      .copy(others)
      .cross(direct_crossings(n) * static_cast<double>(total) / n);
}

template <cct_collective C>
ShmDirect<C>::ShmDirect(const sdk::Comm& comm, std::span<const int64_t>) : comm_(comm) {
  fit(kFirstSlot);
}

template <cct_collective C>
uint64_t* ShmDirect<C>::arrived(int rank) const {
  return static_cast<uint64_t*>(region_->peer(rank));
}

template <cct_collective C>
uint64_t* ShmDirect<C>::done(int rank) const {
  return reinterpret_cast<uint64_t*>(static_cast<std::byte*>(region_->peer(rank)) + kLine);
}

template <cct_collective C>
std::byte* ShmDirect<C>::slot(int rank) const {
  return static_cast<std::byte*>(region_->peer(rank)) + 2 * kLine;
}

// Collective: makes the slots hold `bytes`. The old region goes first: a
// peer still reading it keeps its own mapping, and the new region's
// allocation waits for every rank, so all are past the last call.
template <cct_collective C>
void ShmDirect<C>::fit(std::size_t bytes) {
  if (region_ && bytes <= slot_bytes_) return;
  slot_bytes_ = std::bit_ceil(bytes);
  region_.reset();
  region_.emplace(comm_, 2 * kLine + slot_bytes_);
  calls_ = 0;
}

template <cct_collective C>
void ShmDirect<C>::run(const cct_coll_args& a) {
  const CountedBlocks& blocks = ranks_.of(a, comm_.size());
  if (comm_.size() == 1) {
    copy_bytes(output_of(a), input_of(a), blocks.bytes(0));
    return;
  }
  if (blocks.total_bytes() == 0) return;
  fit(blocks.total_bytes());
  hand_in(a, blocks);
  reduce_own(a, blocks);
  sdk::store_release(done(comm_.rank()), calls_);
}

// This rank's input into its slot, once every peer is done with the
// previous call's. Its own block stays where it is; in place it moves to
// the front of recvbuf, over blocks already safe in the slot.
template <cct_collective C>
void ShmDirect<C>::hand_in(const cct_coll_args& a, const CountedBlocks& blocks) {
  const int n = comm_.size(), me = comm_.rank();
  for (int r = 0; r < n; ++r)
    if (r != me) region_->wait(done(r), calls_, CCT_WAIT_GE);
  ++calls_;
  const std::byte* input = input_of(a);
  const std::size_t own_end = blocks.offset(me) + blocks.bytes(me);
  copy_bytes(slot(me), input, blocks.offset(me));
  copy_bytes(slot(me) + own_end, input + own_end, blocks.total_bytes() - own_end);
  sdk::store_release(arrived(me), calls_);
  // memmove: the block may overlap the front of recvbuf it moves to.
  if (in_place(a) && blocks.bytes(me) > 0)
    std::memmove(output_of(a), input + blocks.offset(me), blocks.bytes(me));
}

// This rank's block: its own contribution combined with each peer's copy,
// peers in turn from the next rank on, so that ranks start on different
// slots.
template <cct_collective C>
void ShmDirect<C>::reduce_own(const cct_coll_args& a, const CountedBlocks& blocks) const {
  const int n = comm_.size(), me = comm_.rank();
  const std::size_t offset = blocks.offset(me);
  std::byte* out = output_of(a);
  const std::byte* own = in_place(a) ? out : input_of(a) + offset;
  for (int s = 1; s < n; ++s) {
    const int peer = (me + s) % n;
    region_->wait(arrived(peer), calls_, CCT_WAIT_GE);
    sdk::reduce_into(out, s == 1 ? own : out, slot(peer) + offset, blocks.count(me), a.dtype, a.op);
  }
}

template class ShmDirect<CCT_REDUCE_SCATTER_BLOCK>;
template class ShmDirect<CCT_REDUCE_SCATTER>;

}  // namespace cct::plugins::reduce_scatter
