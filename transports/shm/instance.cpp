// Opening the shm transport: two bootstrap allgathers set everything up.
//
//   1. "hello": rank 0 has created and sized the segment and sends its name;
//      every rank sends its pid, the address of its CMA probe value, the
//      CPUs it may run on, and whether its local setup worked.
//   2. "ready": every rank has mapped the segment and tried to read its
//      neighbour's probe value through CMA; it sends both outcomes.
//
// The second allgather is the barrier after which rank 0 unlinks the name.
// Any failure travels inside these messages, so all ranks fail together
// instead of some waiting forever for a rank that gave up.
#include "instance.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cct/sdk/comm.hpp"
#include "cma.hpp"
#include "stale_segments.hpp"
#include "stall.hpp"
#include "wait.hpp"

namespace cct::shm {

struct Instance::Hello {
  uint64_t pid;
  uint64_t probe_address;
  cpu_set_t cpus;
  uint32_t ok;
  char text[160];  // rank 0: the segment's name; a rank that failed: why
};

struct Instance::Ready {
  uint32_t ok;
  uint32_t cma;  // this rank read its neighbour's probe value through CMA
  char text[160];
};

namespace {

constexpr std::size_t kDefaultThreshold = std::size_t{32} << 10;

template <std::size_t N>
void set_text(char (&text)[N], const char* value) {
  std::snprintf(text, N, "%s", value);
}

// Ranks need not agree on the threshold: a receiver follows the kind of
// each slot, whichever path the sender chose.
std::size_t threshold_from_environment() {
  const char* env = std::getenv("CCT_SHM_CMA_THRESHOLD");
  if (env == nullptr) return kDefaultThreshold;
  std::size_t value = 0;
  const char* end = env + std::strlen(env);
  auto [ptr, ec] = std::from_chars(env, end, value);
  if (ec != std::errc() || ptr != end || ptr == env)
    throw std::invalid_argument(std::string("CCT_SHM_CMA_THRESHOLD=\"") + env +
                                "\" is not a byte count");
  return value;
}

// cct_bootstrap.timeout_s, which a host of an older minor revision of the
// ABI may not have sent.
double timeout_of(const cct_bootstrap& boot) {
  return boot.struct_size >= offsetof(cct_bootstrap, timeout_s) + sizeof boot.timeout_s
             ? boot.timeout_s
             : 0;
}

// Starts with "/<job key>-" so the launcher's cleanup finds leftovers; the
// creator's pid and a counter keep apart several instances of one job.
std::string segment_name(const cct_bootstrap& boot) {
  static std::atomic<unsigned> instances{0};
  return "/" + std::string(boot.job_key) + "-shm-" + std::to_string(::getpid()) + "-" +
         std::to_string(instances++);
}

void allgather(const cct_bootstrap& boot, const void* send, void* recv, std::size_t bytes) {
  if (boot.allgather(boot.ctx, send, recv, bytes) != CCT_OK)
    throw sdk::TransportError(CCT_ERR_TRANSPORT, "shm open: the bootstrap allgather failed");
}

template <class T>
void throw_first_failure(const std::vector<T>& all, const char* stage) {
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (all[r].ok) continue;
    throw sdk::TransportError(CCT_ERR_TRANSPORT, std::string("shm open: ") + stage +
                                                     " failed on rank " + std::to_string(r) + ": " +
                                                     all[r].text);
  }
}

}  // namespace

Instance::Instance(const cct_bootstrap& boot)
    : rank_(boot.rank),
      size_(boot.size),
      layout_(Layout::for_ranks(boot.size)),
      probe_value_(cma_probe_value(::getpid())) {
  Unlinker unlinker;  // rank 0: the segment's name, until all mapped it
  std::vector<Hello> hellos = exchange_hello(boot, unlinker);
  std::vector<Ready> readies = exchange_ready(boot, hellos);
  unlinker.unlink();
  throw_first_failure(readies, "mapping the segment");
  configure(hellos, readies, timeout_of(boot));
}

std::string Instance::stalled_on_flag() const {
  const SegmentView view(segment_.data(), layout_);
  return stall_report(waits_.timeout_s, ranks_not_waiting(view, rank_), view, pids_);
}

std::vector<Instance::Hello> Instance::exchange_hello(const cct_bootstrap& boot,
                                                      Unlinker& unlinker) {
  Hello mine{};
  mine.pid = static_cast<uint64_t>(::getpid());
  mine.probe_address = reinterpret_cast<uint64_t>(&probe_value_);
  mine.cpus = allowed_cpus();
  mine.ok = 1;
  try {
    threshold_ = threshold_from_environment();
    if (rank_ == 0) create_segment(boot, unlinker, mine);
  } catch (const std::exception& e) {
    mine.ok = 0;
    set_text(mine.text, e.what());
  }
  std::vector<Hello> all(size_);
  allgather(boot, &mine, all.data(), sizeof mine);
  throw_first_failure(all, "setup");
  return all;
}

void Instance::create_segment(const cct_bootstrap& boot, Unlinker& unlinker, Hello& mine) {
  remove_stale_segments();  // before adding one: what crashed jobs left
  std::string name = segment_name(boot);
  segment_ = Mapping::create(name, layout_.total);
  unlinker.arm(name);
  Header* header = SegmentView(segment_.data(), layout_).header();
  header->magic = kMagic;
  header->size = static_cast<uint64_t>(size_);
  header->slots = layout_.slots;
  header->slot_payload = layout_.slot_payload;
  set_text(mine.text, name.c_str());
}

std::vector<Instance::Ready> Instance::exchange_ready(const cct_bootstrap& boot,
                                                      const std::vector<Hello>& hellos) {
  Ready mine{};
  mine.ok = 1;
  try {
    if (rank_ != 0) map_segment(hellos[0].text);
  } catch (const std::exception& e) {
    mine.ok = 0;
    set_text(mine.text, e.what());
  }
  const Hello& next = hellos[(rank_ + 1) % size_];
  mine.cma =
      cma_allowed_by_environment() && cma_probe(static_cast<pid_t>(next.pid), next.probe_address);
  std::vector<Ready> all(size_);
  allgather(boot, &mine, all.data(), sizeof mine);
  return all;
}

void Instance::map_segment(const std::string& name) {
  segment_ = Mapping::open(name, layout_.total);
  const Header* header = SegmentView(segment_.data(), layout_).header();
  if (header->magic != kMagic || header->size != static_cast<uint64_t>(size_) ||
      header->slots != layout_.slots || header->slot_payload != layout_.slot_payload)
    throw sdk::TransportError(CCT_ERR_TRANSPORT,
                              "segment " + name + " has an unexpected header (another version?)");
}

void Instance::configure(const std::vector<Hello>& hellos, const std::vector<Ready>& readies,
                         double timeout_s) {
  SegmentView view(segment_.data(), layout_);
  std::vector<cpu_set_t> cpus;
  for (const Hello& hello : hellos) {
    cpus.push_back(hello.cpus);
    pids_.push_back(static_cast<pid_t>(hello.pid));
  }
  waits_.oversubscribed = ranks_outnumber_cpus(cpus.data(), size_);
  waits_.timeout_s = timeout_s;
  // The waiting word serves only a timeout's report: without one, a wait
  // that sleeps does not write to shared memory for it.
  if (timeout_s > 0) waits_.waiting = &view.control(rank_)->waiting;
  P2pConfig config;
  config.single_copy = std::all_of(readies.begin(), readies.end(), [](auto& r) { return r.cma; });
  config.threshold = threshold_;
  config.waits = waits_;
  config.pids = pids_;
  uint64_t caps = CCT_CAP_P2P | CCT_CAP_SHM | (config.single_copy ? CCT_CAP_SINGLE_COPY : 0);
  p2p_ = std::make_unique<P2p>(view, rank_, std::move(config), &c_.last_error);
  regions_ = std::make_unique<Regions>(view, rank_, hellos[0].text, waits_, pids_);
  c_.struct_size = sizeof c_;
  c_.abi_version = CCT_ABI_VERSION;
  c_.rank = rank_;
  c_.size = size_;
  c_.capabilities = caps;
  c_.p2p = &kP2pOps;
  c_.shm = &kShmOps;
  c_.state = this;
}

}  // namespace cct::shm
