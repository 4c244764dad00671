// The engine's front: the run loop that drives fibers by events, and the
// calls that need nothing of the network (rendezvous, compute).
#include "rapidio_sim/engine/engine.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#include "rapidio_sim/engine/impl.hpp"

namespace cct::rio {
namespace {

thread_local Engine* t_current = nullptr;

// Sets the running engine for the duration of a fiber's turn.
class CurrentEngine {
 public:
  explicit CurrentEngine(Engine* e) : saved_(t_current) { t_current = e; }
  ~CurrentEngine() { t_current = saved_; }
  CurrentEngine(const CurrentEngine&) = delete;
  CurrentEngine& operator=(const CurrentEngine&) = delete;

 private:
  Engine* saved_;
};

Routing make_routing(const FabricSpec& spec) {
  return spec.mst_routing ? Routing::minimum_spanning_tree(spec) : Routing::shortest_paths(spec);
}

}  // namespace

Engine::Impl::Impl(FabricSpec fabric_spec)
    : spec(std::move(fabric_spec)), routing(make_routing(spec)) {
  build_network();
}

// Wakes are deduplicated: one pending resume per rank is enough, the fiber
// re-checks what it waits for.
void Engine::Impl::wake(int rank) {
  if (ranks[rank].wake_pending || !fibers.blocked(rank)) return;
  ranks[rank].wake_pending = true;
  events.schedule(now, EventKind::kWake, static_cast<uint32_t>(rank), 0);
}

void Engine::Impl::dispatch(const Event& e) {
  switch (e.kind) {
    case EventKind::kTxDone: on_tx_done(e.a, e.b); break;
    case EventKind::kEnqueue: enqueue(e.a, e.b); break;
    case EventKind::kWake: ranks[e.a].wake_pending = false; [[fallthrough]];
    case EventKind::kTimer:
      if (fibers.blocked(static_cast<int>(e.a))) fibers.resume(static_cast<int>(e.a));
      return;
  }
  if (quiet_waiter >= 0 && events.network_idle()) wake(quiet_waiter);
}

// Everything a run leaves behind (unmatched messages, collectives of ranks
// that failed) belongs to that run only.
void Engine::Impl::reset_run_state() {
  events.clear();
  packets.clear();
  for (Port& p : ports) {
    p.queue.clear();
    p.busy = false;
  }
  sends.clear();
  recvs.clear();
  for (auto& c : channels) c.clear();
  colls.clear();
  coll_by_key.clear();
  for (auto& s : coll_seq) s.clear();
  counters.clear();
  meetings.clear();
  quiet_waiter = -1;
}

void Engine::Impl::rendezvous(uint64_t key, int index, int count, const void* send, void* recv,
                              std::size_t bytes) {
  if (count < 1 || index < 0 || index >= count) {
    throw std::invalid_argument("rendezvous: index " + std::to_string(index) +
                                " outside a meeting of " + std::to_string(count));
  }
  Meeting& m = meetings[key];
  if (m.count == 0) {
    m.count = count;
    m.bytes = bytes;
    m.data.resize(count * bytes);
  } else if (m.count != count || m.bytes != bytes) {
    throw std::invalid_argument("rendezvous " + std::to_string(key) +
                                ": callers disagree on count or size");
  }
  if (bytes > 0) std::memcpy(m.data.data() + index * bytes, send, bytes);
  m.callers.emplace_back(me(), recv);
  if (++m.arrived < count) {
    ranks[me()].met = false;
    wait_until(WaitInfo{WaitInfo::What::kRendezvous, key, static_cast<uint64_t>(m.arrived),
                        static_cast<uint64_t>(count), 0},
               [this] { return ranks[me()].met; });
    return;
  }
  for (auto& [rank, out] : m.callers) {
    if (bytes > 0) std::memcpy(out, m.data.data(), m.data.size());
    if (rank != me()) {
      ranks[rank].met = true;
      wake(rank);
    }
  }
  meetings.erase(key);
}

// A meeting that ends once nothing moves on the fabric: the last rank to
// arrive waits for the network to fall idle, then releases the others, who
// resume at that same virtual time. So what follows starts from the same
// state (every rank at one time, every port empty) whatever ran before:
// the measurements of two candidates do not depend on their order.
// Every caller, the last too, resumes by a wake scheduled in rank order:
// the order in which ranks act at one virtual time (and so the order of
// events at equal times) must not depend on who arrived last.
void Engine::Impl::quiesce(uint64_t key, int count) {
  Meeting& m = meetings[key];
  if (m.count == 0)
    m.count = count;
  else if (m.count != count)
    throw std::invalid_argument("quiesce " + std::to_string(key) + ": callers disagree on count");
  m.callers.emplace_back(me(), nullptr);
  ranks[me()].met = false;
  if (++m.arrived < count) {
    wait_until(WaitInfo{WaitInfo::What::kRendezvous, key, static_cast<uint64_t>(m.arrived),
                        static_cast<uint64_t>(count), 0},
               [this] { return ranks[me()].met; });
    return;
  }
  quiet_waiter = me();
  wait_until(WaitInfo{WaitInfo::What::kQuiet, key, 0, 0, 0},
             [this] { return events.network_idle(); });
  quiet_waiter = -1;
  std::vector<int> order;
  for (const auto& caller : m.callers) order.push_back(caller.first);
  meetings.erase(key);
  std::sort(order.begin(), order.end());
  for (int rank : order) {
    ranks[rank].met = true;
    ranks[rank].wake_pending = true;
    events.schedule(now, EventKind::kWake, static_cast<uint32_t>(rank), 0);
  }
  ranks[me()].wait = WaitInfo{WaitInfo::What::kQuiet, key, 0, 0, 0};
  fibers.block();
}

void Engine::Impl::compute(double dsp_cycles) {
  if (!(dsp_cycles > 0)) return;
  const Time until = now + static_cast<Time>(std::llround(dsp_cycles * 1e12 / spec.dsp_clock_hz));
  if (until == now) return;
  events.schedule(until, EventKind::kTimer, static_cast<uint32_t>(me()), 0);
  wait_until(WaitInfo{}, [this, until] { return now >= until; });
}

Engine::Engine(FabricSpec spec) : impl_(std::make_unique<Impl>(std::move(spec))) {}
Engine::~Engine() = default;

const FabricSpec& Engine::fabric() const {
  return impl_->spec;
}
const Routing& Engine::routing() const {
  return impl_->routing;
}
Engine* Engine::current() {
  return t_current;
}
int Engine::current_rank() const {
  return impl_->me();
}
Time Engine::now() const {
  return impl_->now;
}
const Stats& Engine::stats() const {
  return impl_->stats;
}

std::vector<Engine::Failure> Engine::run(int nranks, const std::function<void(int rank)>& body) {
  Impl& s = *impl_;
  if (nranks < 1 || nranks > s.dsps) {
    throw std::invalid_argument("rio engine: " + std::to_string(nranks) + " ranks on a fabric of " +
                                std::to_string(s.dsps) + " DSPs");
  }
  s.reset_run_state();
  s.now = 0;
  s.failures.clear();
  s.ranks.assign(nranks, RankState{});
  s.stats.rank_time.assign(nranks, 0);
  s.fibers.create(nranks, body, [&s](int rank, const std::string& error) {
    s.stats.rank_time[rank] = s.now;
    if (!error.empty()) s.failures.push_back(Failure{rank, error});
  });
  for (int r = 0; r < nranks; ++r) {
    s.ranks[r].wake_pending = true;
    s.events.schedule(0, EventKind::kWake, static_cast<uint32_t>(r), 0);
  }
  {
    CurrentEngine current(this);
    try {
      while (!s.events.empty()) {
        Event e = s.events.pop();
        s.now = e.time;
        ++s.stats.events;
        s.dispatch(e);
      }
    } catch (...) {
      s.fibers.unwind_all();
      s.reset_run_state();
      throw;
    }
    for (int r = 0; r < nranks; ++r) {
      if (s.fibers.finished(r)) continue;
      s.stats.rank_time[r] = s.now;
      s.failures.push_back(Failure{r, "deadlock: waits for " + describe_wait(s.ranks[r].wait)});
    }
    s.fibers.unwind_all();
  }
  s.reset_run_state();
  std::stable_sort(s.failures.begin(), s.failures.end(),
                   [](const Failure& a, const Failure& b) { return a.rank < b.rank; });
  return std::move(s.failures);
}

void Engine::rendezvous(uint64_t key, int index, int count, const void* send, void* recv,
                        std::size_t bytes) {
  impl_->rendezvous(key, index, count, send, recv, bytes);
}
void Engine::quiesce(uint64_t key, int count) {
  impl_->quiesce(key, count);
}
void Engine::compute(double dsp_cycles) {
  impl_->compute(dsp_cycles);
}
void Engine::isend(uint32_t context, int dst_dsp, uint32_t tag, const void* buf, std::size_t bytes,
                   Request& req) {
  impl_->isend(context, dst_dsp, tag, buf, bytes, req);
}
void Engine::irecv(uint32_t context, int src_dsp, uint32_t tag, void* buf, std::size_t bytes,
                   Request& req) {
  impl_->irecv(context, src_dsp, tag, buf, bytes, req);
}
bool Engine::test(Request& req) {
  return impl_->test(req);
}
void Engine::waitall(Request* reqs, std::size_t count) {
  impl_->waitall(reqs, count);
}
void Engine::mcast_bcast(uint32_t context, std::span<const int> members, int root, void* buf,
                         std::size_t bytes) {
  impl_->bcast(context, members, root, buf, bytes);
}
void Engine::aggregate_gather(uint32_t context, std::span<const int> members, int root,
                              const void* send, void* recv, std::size_t bytes_per_rank) {
  impl_->gather(context, members, root, send, recv, bytes_per_rank);
}
void Engine::aggregate_reduce(uint32_t context, std::span<const int> members, int root,
                              const void* send, void* recv, std::size_t count, cct_datatype dtype,
                              cct_op op) {
  impl_->reduce(context, members, root, send, recv, count, dtype, op);
}
uint64_t Engine::fetch_add(uint32_t context, std::span<const int> members, uint32_t counter,
                           uint64_t add) {
  return impl_->fetch_add(context, members, counter, add);
}
void Engine::wait_ge(uint32_t context, std::span<const int> members, uint32_t counter,
                     uint64_t value) {
  impl_->wait_ge(context, members, counter, value);
}

}  // namespace cct::rio
