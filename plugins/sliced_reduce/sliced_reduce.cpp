#include "sliced_reduce/sliced_reduce.hpp"

#include <cstring>
#include <string>

#include "common/args.hpp"
#include "common/rooted.hpp"

namespace cct::plugins::sliced_reduce {
namespace {

int validate_reducers(int64_t reducers, int size) {
  if (reducers < 0) throw cct::sdk::Unsupported("reducers " + std::to_string(reducers) + " < 0");
  return reducers == 0 || reducers > size ? size : static_cast<int>(reducers);
}

// The bytes of a chunk sliced as `slicing` that move between the halves
// with the root at 0 (so reducer k holds slice k): reducer k reads its
// slice of each input of the other half, and the receivers (all ranks, or
// the root) read its result slice where they lie on the other side of it.
double crossing(const Slicing& slicing, int size, int reducers, bool everyone) {
  double bytes = 0;
  for (int k = 0; k < reducers; ++k) {
    const double others = cct::sdk::crossing_ranks(size, [&](int) { return k; });
    const double receivers =
        everyone ? others : cct::sdk::crossing_ranks(size, [&](int r) { return r == 0 ? k : -1; });
    bytes += static_cast<double>(slicing.length(k)) * (others + receivers);
  }
  return bytes;
}

}  // namespace

// One call as this rank sees it: the vector, who reduces which slice, who
// receives the result.
struct Sliced::Call {
  const cct_coll_args& args;
  std::size_t bytes;
  uint64_t first;  // the number of the call's first chunk
  std::size_t chunk;
  int size;
  int self;
  int root;  // slices are counted from it; 0 for allreduce
  int reducers;
  bool everyone_receives;

  int slice_of(int rank) const { return (rank - root + size) % size; }
  bool reduces(int rank) const { return slice_of(rank) < reducers; }
  bool receives(int rank) const { return everyone_receives || rank == root; }
  // Whether a reducer's slice must go through its result slot.
  bool published(int rank) const { return everyone_receives || rank != root; }
  std::size_t length(uint64_t i) const { return std::min<std::size_t>(chunk, bytes - i * chunk); }
  Slicing slicing(uint64_t i) const { return Slicing(length(i), reducers); }
};

void Sliced::check(const cct::sdk::Comm& comm, const cct_coll_args&,
                   std::span<const int64_t> params) {
  validate_chunk(params[0]);
  validate_reducers(params[1], comm.size());
}

// Per chunk the root (allreduce: rank 0) waits for each peer's done flag,
// hands in all but slice 0, waits for each peer's input to combine slice 0,
// publishes it (allreduce), then waits for and copies each other slice.
// Across the halves (root 0): each reducer's slice of every input of the
// other half, and each receiver's copy of the other half's result slices.
cct_cost Sliced::cost(const cct::sdk::Comm& comm, const cct_coll_args& args,
                      std::span<const int64_t> params) {
  const std::size_t bytes = args.count * elem_size(args), chunk = validate_chunk(params[0]);
  const int size = comm.size(), reducers = validate_reducers(params[1], size);
  const bool everyone = args.collective == CCT_ALLREDUCE;
  if (!everyone) check_root(args.root, size);
  if (bytes == 0 || size < 2) return {};
  cct::sdk::CostShape cost;
  for (uint64_t i = 0; i < chunks_in(bytes, chunk); ++i) {
    const std::size_t length = std::min<std::size_t>(chunk, bytes - i * chunk);
    const auto own = static_cast<double>(Slicing(length, reducers).length(0));
    cost.send(cct::sdk::outer_span(comm), 2 * (size - 1) + reducers - 1, 0)
        .reduce((size - 1) * own)
        .copy(2 * (static_cast<double>(length) - own) + (everyone ? own : 0))
        .cross(crossing(Slicing(length, reducers), size, reducers, everyone));
  }
  return cost;
}

Sliced::Sliced(const cct::sdk::Comm& comm, std::span<const int64_t> params)
    : comm_(comm),
      chunk_(validate_chunk(params[0])),
      reducers_(validate_reducers(params[1], comm.size())),
      region_(comm, Part::bytes(chunk_, reducers_)) {}

void Sliced::run(const cct_coll_args& args, int root) {
  if (root != kEveryone) check_root(root, comm_.size());
  const std::size_t bytes = args.count * elem_size(args);
  if (bytes == 0) return;
  if (comm_.size() == 1) {
    copy_bytes(output_of(args), input_of(args), bytes);
    return;
  }
  const Call call{args,
                  bytes,
                  chunks_,
                  chunk_,
                  comm_.size(),
                  comm_.rank(),
                  root == kEveryone ? 0 : root,
                  reducers_,
                  root == kEveryone};
  const uint64_t chunks = chunks_in(bytes, chunk_);
  chunks_ += chunks;
  const Part mine = part(call.self);
  hand_in(call, 0);
  for (uint64_t i = 0; i < chunks; ++i) {
    if (call.reduces(call.self)) reduce_slice(call, i);
    if (i + 1 < chunks) hand_in(call, i + 1);
    if (call.receives(call.self)) collect(call, i);
    cct::sdk::store_release(mine.done(), call.first + i + 1);
  }
}

// Step 1: the slices of chunk i that other ranks reduce into this rank's
// slot, once every rank is done with the chunk that used the slot before.
void Sliced::hand_in(const Call& call, uint64_t i) const {
  const uint64_t n = call.first + i;
  if (n >= kSlots)
    for (int r = 0; r < call.size; ++r)
      if (r != call.self) region_.wait(part(r).done(), n - kSlots + 1, CCT_WAIT_GE);
  const std::size_t length = call.length(i);
  std::size_t own_start = 0, own_end = 0;  // the slice this rank keeps
  if (call.reduces(call.self)) {
    const Slicing slicing = call.slicing(i);
    own_start = slicing.offset(call.slice_of(call.self));
    own_end = own_start + slicing.length(call.slice_of(call.self));
  }
  const std::byte* chunk = input_of(call.args) + i * call.chunk;
  const Part mine = part(call.self);
  std::memcpy(mine.input(n), chunk, own_start);
  std::memcpy(mine.input(n) + own_end, chunk + own_end, length - own_end);
  cct::sdk::store_release(mine.inputs(), n + 1);
}

// Step 2: this rank's slice of chunk i, its own input first, then every
// other rank's in rank order. The result goes to the output when this rank
// receives it, and (also) into its result slot when others do.
void Sliced::reduce_slice(const Call& call, uint64_t i) const {
  const uint64_t n = call.first + i;
  const Slicing slicing = call.slicing(i);
  const int slice = call.slice_of(call.self);
  const std::size_t offset = slicing.offset(slice);
  const std::size_t elements = slicing.length(slice) / elem_size(call.args);
  const Part mine = part(call.self);
  const bool receives = call.receives(call.self);
  std::byte* acc = receives ? output_of(call.args) + i * call.chunk + offset : mine.result(n);
  const std::byte* own = input_of(call.args) + i * call.chunk + offset;
  bool first_peer = true;
  for (int r = 0; r < call.size; ++r) {
    if (r == call.self) continue;
    const Part peer = part(r);
    region_.wait(peer.inputs(), n + 1, CCT_WAIT_GE);
    cct::sdk::reduce_into(acc, first_peer ? own : acc, peer.input(n) + offset, elements,
                          call.args.dtype, call.args.op);
    first_peer = false;
  }
  if (!call.published(call.self)) return;
  if (receives) std::memcpy(mine.result(n), acc, slicing.length(slice));
  cct::sdk::store_release(mine.results(), n + 1);
}

// Step 3: every other reducer's slice of chunk i into the output.
void Sliced::collect(const Call& call, uint64_t i) const {
  const uint64_t n = call.first + i;
  const Slicing slicing = call.slicing(i);
  for (int r = 0; r < call.size; ++r) {
    if (r == call.self || !call.reduces(r)) continue;
    const Part peer = part(r);
    region_.wait(peer.results(), n + 1, CCT_WAIT_GE);
    const int slice = call.slice_of(r);
    std::memcpy(output_of(call.args) + i * call.chunk + slicing.offset(slice), peer.result(n),
                slicing.length(slice));
  }
}

}  // namespace cct::plugins::sliced_reduce
