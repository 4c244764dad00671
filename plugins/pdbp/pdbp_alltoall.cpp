#include "pdbp/pdbp_alltoall.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>

#include "alltoall/outgoing.hpp"
#include "common/args.hpp"
#include "common/crossings.hpp"

namespace cct::plugins::pdbp {
namespace {

using Step = WorkStealingPool::Step;

// Each rank's pool: blocks of this budget, at least one.
constexpr std::size_t kPoolBytes = 1 << 20;
constexpr int64_t kMaxBlock = 1 << 20;
constexpr int64_t kMaxSlots = 64;
constexpr int64_t kMaxThreads = 16;
// How long a writer waits for another pool thread to return a block before
// it moves on to its other flows. A single thread does not wait: only its
// own write flows return blocks (when they see peers' acknowledgements).
constexpr BufferPolicy::Patience kSharedPoolPatience{20};

// The blocks of `block` bytes in a rank's pool, at least one.
int pool_blocks(std::size_t block) {
  return static_cast<int>(std::max<std::size_t>(1, kPoolBytes / block));
}

constexpr std::size_t round_up(std::size_t bytes, std::size_t to) {
  return (bytes + to - 1) / to * to;
}

// Whether this many threads (all ranks' pool threads: the ranks of a shm
// communicator share one node) fit on the node's cores without sharing.
bool every_thread_has_a_core(int threads) {
  return static_cast<unsigned>(threads) <= std::thread::hardware_concurrency();
}

// alltoall's equal blocks in the interface of plugins/alltoallv/blocks.hpp.
struct EqualBlocks {
  const std::byte* in;
  std::byte* out;
  std::size_t bytes;
  const std::byte* to(int r) const { return in + r * bytes; }
  std::size_t to_bytes(int) const { return bytes; }
  std::byte* from(int r) const { return out + r * bytes; }
  std::size_t from_bytes(int) const { return bytes; }
};

void require_in(const char* name, int64_t value, int64_t lo, int64_t hi) {
  if (value < lo || value > hi)
    throw sdk::Unsupported(std::string(name) + " " + std::to_string(value) + " outside " +
                           std::to_string(lo) + ".." + std::to_string(hi));
}

}  // namespace

PdbpAlltoall::Settings PdbpAlltoall::checked(std::span<const int64_t> p) {
  require_in("block", p[0], 64, kMaxBlock);
  if (p[0] % 64 != 0)
    throw sdk::Unsupported("block " + std::to_string(p[0]) + " is not a multiple of 64");
  require_in("slots", p[1], 1, kMaxSlots);
  require_in("threshold", p[2], 1, 100);
  require_in("threads", p[3], 1, kMaxThreads);
  return {static_cast<std::size_t>(p[0]), static_cast<int>(p[1]), static_cast<int>(p[2]),
          static_cast<int>(p[3])};
}

void PdbpAlltoall::check(const sdk::Comm&, const cct_coll_args&, std::span<const int64_t> p) {
  checked(p);
}

// Every flow runs at once, so flag waits on different peers overlap. Rows
// grow on use, so the pool is what throttles: a reader waits once for the
// first publish, and every refill of the pool costs one more acknowledgement
// and publish. Each byte is copied into the pool and out of it by the
// rank's pool threads together. Every rank's blocks for the other half
// cross it once, written into the writer's pool and read by the reader.
cct_cost PdbpAlltoall::cost(const sdk::Comm& comm, const cct_coll_args& a,
                            std::span<const int64_t> params) {
  const Settings settings = checked(params);
  const int peers = comm.size() - 1;
  const std::size_t bytes = a.count * elem_size(a);
  if (bytes == 0 || peers == 0) return {};
  const double chunks = peers * static_cast<double>((bytes + settings.block - 1) / settings.block);
  const double refills = std::ceil(chunks / pool_blocks(settings.block)) - 1;
  return sdk::CostShape()
      .send(sdk::outer_span(comm), 1 + 2 * refills, 0)
      .copy(2.0 * peers * static_cast<double>(bytes) / settings.threads)
      .cross(direct_crossings(comm.size()) * static_cast<double>(bytes));
}

PdbpAlltoall::PdbpAlltoall(const sdk::Comm& comm, std::span<const int64_t> params)
    : PdbpAlltoall(comm, checked(params)) {}

PdbpAlltoall::PdbpAlltoall(const sdk::Comm& comm, const Settings& settings)
    : comm_(comm),
      block_(settings.block),
      pool_blocks_(pool_blocks(block_)),
      ring_offset_(comm.size() * sizeof(RowCounters)),
      blocks_offset_(ring_offset_ + round_up(comm.size() * pool_blocks_ * sizeof(uint32_t), 64)),
      patience_(settings.threads > 1 ? kSharedPoolPatience : BufferPolicy::Patience{0}),
      region_(comm, blocks_offset_ + pool_blocks_ * block_),
      policy_({.peers = comm.size(),
               .initial_slots = settings.slots,
               .threshold_percent = settings.threshold,
               .blocks = pool_blocks_}),
      pool_(settings.threads, every_thread_has_a_core(comm.size() * settings.threads),
            comm.timeout_s()),
      step_fn_([this](std::size_t task) { return step(flows_[task]); }) {
  // Peers in rotated order (rank + k to write, rank - k to read), so that
  // the ranks do not all start on the same peer.
  const int n = comm.size(), rank = comm.rank();
  for (int k = 1; k < n; ++k) {
    flows_.push_back({.writes = true, .peer = (rank + k) % n});
    flows_.push_back({.writes = false, .peer = (rank - k + n) % n});
  }
}

PdbpAlltoall::RowCounters& PdbpAlltoall::row(int writer, int reader) const {
  return static_cast<RowCounters*>(region_.peer(writer))[reader];
}

// A row's ring holds as many slots as the pool has blocks: no row can hold
// more, so a slot is never reused before its chunk was drained. `chunk`
// counts from the row's first call.
uint32_t& PdbpAlltoall::slot(int writer, int reader, uint64_t chunk) const {
  auto* rings =
      reinterpret_cast<uint32_t*>(static_cast<std::byte*>(region_.peer(writer)) + ring_offset_);
  return rings[reader * pool_blocks_ + chunk % pool_blocks_];
}

std::byte* PdbpAlltoall::block_at(int owner, uint32_t block) const {
  return static_cast<std::byte*>(region_.peer(owner)) + blocks_offset_ + block * block_;
}

std::size_t PdbpAlltoall::chunk_bytes(const Flow& flow, uint64_t chunk) const {
  return std::min(block_, flow.bytes - chunk * block_);
}

void PdbpAlltoall::run(const cct_coll_args& a) {
  if (a.count == 0) return;
  const int n = comm_.size(), rank = comm_.rank();
  const std::size_t bytes = a.count * elem_size(a);
  const EqualBlocks blocks{alltoall::outgoing_blocks(a, scratch_, n * bytes), output_of(a), bytes};
  copy_bytes(blocks.from(rank), blocks.to(rank), bytes);
  exchange(blocks);
}

void PdbpAlltoall::move_flows() {
  policy_.start_call();
  for (Flow& flow : flows_) {
    flow.chunks = (flow.bytes + block_ - 1) / block_;
    flow.done = flow.reclaimed = 0;
  }
  // The flows poll the peers' rows themselves, so CCT_TIMEOUT is theirs
  // to keep (cct_comm.timeout_s): a pool thread stuck that long ends it.
  if (!pool_.run(flows_.size(), step_fn_))
    throw sdk::TransportError(CCT_ERR_TIMEOUT, stalled_flows());
  for (Flow& flow : flows_) flow.before += flow.chunks;
}

// "pdbp: no flow moved for 2 s; waiting for rank 1 (to write), rank 3
// (to drain)": the peers of the flows not done.
std::string PdbpAlltoall::stalled_flows() const {
  std::ostringstream text;
  text << "pdbp: no flow moved for " << comm_.timeout_s() << " s; waiting for";
  const char* separator = " ";
  for (const Flow& flow : flows_) {
    const bool done = flow.done == flow.chunks && (!flow.writes || flow.reclaimed == flow.chunks);
    if (done) continue;
    text << separator << "rank " << flow.peer << (flow.writes ? " (to drain)" : " (to write)");
    separator = ", ";
  }
  return text.str();
}

Step PdbpAlltoall::step(Flow& flow) {
  return flow.writes ? write_step(flow) : read_step(flow);
}

// Returns the blocks of the chunks the peer drained to the pool.
bool PdbpAlltoall::reclaim(Flow& flow) {
  const uint64_t drained = sdk::load_acquire(&row(comm_.rank(), flow.peer).consumed) - flow.before;
  const bool any = flow.reclaimed < drained;
  for (; flow.reclaimed < drained; ++flow.reclaimed)
    policy_.release(flow.peer, slot(comm_.rank(), flow.peer, flow.before + flow.reclaimed));
  return any;
}

Step PdbpAlltoall::write_step(Flow& flow) {
  const int rank = comm_.rank();
  const bool reclaimed = reclaim(flow);
  const uint64_t first = flow.done;
  while (flow.done < flow.chunks) {
    const auto block = policy_.acquire(flow.peer, patience_);
    if (!block) break;
    const std::size_t bytes = chunk_bytes(flow, flow.done);
    std::memcpy(block_at(rank, *block), flow.in + flow.done * block_, bytes);
    slot(rank, flow.peer, flow.before + flow.done) = *block;
    policy_.record_sent(flow.peer, bytes);
    ++flow.done;
  }
  if (flow.done > first) sdk::store_release(&row(rank, flow.peer).written, flow.before + flow.done);
  if (flow.done == flow.chunks && flow.reclaimed == flow.chunks) return Step::done;
  return reclaimed || flow.done > first ? Step::moved : Step::stuck;
}

Step PdbpAlltoall::read_step(Flow& flow) {
  if (flow.done == flow.chunks) return Step::done;  // an empty row
  const int rank = comm_.rank();
  RowCounters& counters = row(flow.peer, rank);
  // The writer may already be publishing its next call's chunks.
  const uint64_t ready = std::min(flow.chunks, sdk::load_acquire(&counters.written) - flow.before);
  if (flow.done == ready) return Step::stuck;
  std::size_t bytes = 0;
  for (; flow.done < ready; ++flow.done) {
    const std::size_t chunk = chunk_bytes(flow, flow.done);
    std::memcpy(flow.out + flow.done * block_,
                block_at(flow.peer, slot(flow.peer, rank, flow.before + flow.done)), chunk);
    bytes += chunk;
  }
  sdk::store_release(&counters.consumed, flow.before + flow.done);
  policy_.record_received(flow.peer, bytes);
  return flow.done == flow.chunks ? Step::done : Step::moved;
}

}  // namespace cct::plugins::pdbp
