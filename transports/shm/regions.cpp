// Shared regions made by shm alloc (see regions.hpp).
#include "regions.hpp"

#include <hwloc.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cct/sdk/comm.hpp"
#include "stall.hpp"
#include "wait.hpp"

namespace cct::shm {
namespace {

// This machine's topology, loaded once per process on the first placement
// (a real machine can take milliseconds to discover). Null when hwloc
// cannot load it.
hwloc_topology_t machine_topology() {
  using Owner = std::unique_ptr<hwloc_topology, void (*)(hwloc_topology_t)>;
  static const Owner topology = [] {
    hwloc_topology_t t = nullptr;
    if (hwloc_topology_init(&t) != 0) return Owner(nullptr, hwloc_topology_destroy);
    Owner owner(t, hwloc_topology_destroy);
    if (hwloc_topology_load(t) != 0) owner.reset();
    return owner;
  }();
  return topology.get();
}

bool debug_log() {
  static const bool on = [] {
    const char* v = std::getenv("CCT_LOG");
    return v != nullptr && std::strcmp(v, "debug") == 0;
  }();
  return on;
}

using Bitmap = std::unique_ptr<hwloc_bitmap_s, void (*)(hwloc_bitmap_t)>;

Bitmap make_bitmap() {
  return Bitmap(hwloc_bitmap_alloc(), hwloc_bitmap_free);
}

std::string list_of(hwloc_const_bitmap_t set) {
  char* text = nullptr;
  if (hwloc_bitmap_list_asprintf(&text, set) < 0) return "?";
  std::string list = text;
  std::free(text);
  return list;
}

// Binds [part, part + bytes) to the NUMA nodes of the CPUs this process is
// bound to now. Returns where it went, for the debug log; on any refusal
// the part is left to first touch, which the caller does next.
std::string bind_to_my_numa_nodes(void* part, std::size_t bytes) {
  hwloc_topology_t topo = machine_topology();
  if (topo == nullptr || !hwloc_topology_is_thissystem(topo))
    return "left to first touch (no topology of this machine)";
  Bitmap cpus = make_bitmap();
  Bitmap nodes = make_bitmap();
  if (!cpus || !nodes || hwloc_get_cpubind(topo, cpus.get(), HWLOC_CPUBIND_PROCESS) != 0)
    return "left to first touch (binding unknown)";
  hwloc_cpuset_to_nodeset(topo, cpus.get(), nodes.get());
  if (hwloc_set_area_membind(topo, part, bytes, nodes.get(), HWLOC_MEMBIND_BIND,
                             HWLOC_MEMBIND_BYNODESET) != 0)
    return "left to first touch (membind refused: " + std::string(std::strerror(errno)) + ")";
  return "bound to NUMA node(s) " + list_of(nodes.get()) + " (CPUs " + list_of(cpus.get()) + ")";
}

}  // namespace

Regions::Regions(const SegmentView& segment, int rank, std::string name_prefix,
                 const WaitPolicy& waits, const std::vector<pid_t>& pids)
    : segment_(segment), rank_(rank), prefix_(std::move(name_prefix)), waits_(waits), pids_(pids) {}

// Parts of a page or more start on a page of their own, and each rank
// binds its part to its NUMA node before its first touch (the zeroing):
// first touch alone places a page where the rank ran when it touched it,
// which is wrong once the rank moves, or when another rank touches first.
// Smaller parts share pages, and stay with first touch.
void Regions::alloc(std::size_t bytes_per_rank, cct_shm_region* out) {
  uint64_t gen = ++generation_;
  int size = segment_.layout().size;
  std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::size_t part = round_up(bytes_per_rank, kLine);
  std::size_t stride = part >= page ? round_up(part, page) : part;
  std::size_t total = std::max(stride * size, page);
  auto region = std::make_unique<Region>();
  std::string error;
  Unlinker unlinker;
  try {
    region->mapping =
        rank_ == 0 ? create_and_publish(gen, total, unlinker) : open_published(gen, total);
    place(gen, region->mapping.data() + rank_ * stride, part, stride, page);
    std::memset(region->mapping.data() + rank_ * stride, 0, part);
  } catch (const std::exception& e) {
    error = e.what();
  }
  // Nobody may store into a part before its owner zeroed it: wait for all.
  bool others_failed = arrive_and_wait(gen, !error.empty());
  unlinker.unlink();
  if (!error.empty()) throw sdk::TransportError(CCT_ERR_TRANSPORT, "shm alloc: " + error);
  if (others_failed)
    throw sdk::TransportError(CCT_ERR_TRANSPORT, "shm alloc of " + std::to_string(bytes_per_rank) +
                                                     " bytes per rank failed on another rank");
  for (int r = 0; r < size; ++r) region->peer.push_back(region->mapping.data() + r * stride);
  *out = cct_shm_region{part, region->peer.data(), region.get()};
  live_.push_back(std::move(region));
}

void Regions::place(uint64_t gen, char* part, std::size_t bytes, std::size_t stride,
                    std::size_t page) const {
  const std::string where = bytes >= page ? bind_to_my_numa_nodes(part, stride)
                                          : "left to first touch (smaller than a page)";
  if (debug_log())
    std::fprintf(stderr, "cct: rank %d: shm region %llu: part of %zu bytes %s\n", rank_,
                 static_cast<unsigned long long>(gen), bytes, where.c_str());
}

// Publishes the name even when creation fails, so the others stop waiting.
Mapping Regions::create_and_publish(uint64_t gen, std::size_t bytes, Unlinker& unlinker) {
  ControlLine* line = segment_.control(0);
  std::string name = prefix_ + "-r" + std::to_string(gen);
  try {
    Mapping mapping = Mapping::create(name, bytes);
    unlinker.arm(name);
    std::snprintf(line->alloc_name, kNameLen, "%s", name.c_str());
    line->alloc_failed = 0;
    store_release(&line->alloc_seq, gen);
    return mapping;
  } catch (...) {
    line->alloc_failed = 1;
    store_release(&line->alloc_seq, gen);
    throw;
  }
}

Mapping Regions::open_published(uint64_t gen, std::size_t bytes) {
  ControlLine* line = segment_.control(0);
  if (!wait_for(&line->alloc_seq, gen, CCT_WAIT_GE, waits_)) time_out({0});
  if (line->alloc_failed != 0)
    throw sdk::TransportError(CCT_ERR_TRANSPORT, "rank 0 could not create the region");
  return Mapping::open(line->alloc_name, bytes);
}

// Every rank arrives once per alloc, so the count reaching gen * size means
// all arrived for this one. Returns whether some rank failed.
bool Regions::arrive_and_wait(uint64_t gen, bool failed) {
  Counters* counters = segment_.counters();
  if (failed) store_release(&counters->alloc_failed_gen, gen);
  fetch_add(&counters->alloc_arrivals, 1);
  if (!wait_for(&counters->alloc_arrivals, gen * segment_.layout().size, CCT_WAIT_GE, waits_))
    time_out(ranks_not_waiting(segment_, rank_));
  return load_acquire(&counters->alloc_failed_gen) == gen;
}

void Regions::time_out(const std::vector<int>& awaited) const {
  throw sdk::TransportError(
      CCT_ERR_TIMEOUT, "shm alloc: " + stall_report(waits_.timeout_s, awaited, segment_, pids_));
}

// An unlinked POSIX segment lives as long as any process maps it, so one
// rank unmapping its view never pulls memory from under a peer still using
// the region: free need not wait for the others. Waiting would deadlock a
// rank that frees while unwinding from an error, its peers waiting for it
// elsewhere.
void Regions::free(cct_shm_region* region) {
  if (region == nullptr || region->handle == nullptr) return;
  auto owned = std::find_if(live_.begin(), live_.end(),
                            [&](const auto& r) { return r.get() == region->handle; });
  if (owned != live_.end()) live_.erase(owned);
  *region = cct_shm_region{};
}

}  // namespace cct::shm
