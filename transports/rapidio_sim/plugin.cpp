// The RapidIO fabric simulator as a transport plugin (the MPIRIO seed's
// BWDSP boards on RapidIO switches).
//
// Every rank of a simulated job is a fiber of one process (job.cpp); an
// instance is one rank's view of one communicator: the DSPs of its ranks
// and a context that keeps its messages apart from other communicators'.
// Besides p2p it grants what the seed's switches do: broadcast replication
// (mcast), gather aggregation and in-switch reduction (aggregate), and
// counters (atomic), so the switch-assisted algorithms run here and
// nowhere else. Time is virtual (sim): the tuner measures with it.
#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cct/abi/export.h"
#include "cct/sdk/algorithm.hpp"
#include "rapidio_sim/job.hpp"

namespace cct::rio {
namespace {

// waitall hands the caller's cct_request array to the engine as Requests.
static_assert(sizeof(Request) == sizeof(cct_request) && alignof(Request) <= alignof(cct_request),
              "an engine request must be laid out as a cct_request");

struct Instance {
  cct_transport_instance c{};
  Engine* engine = nullptr;
  uint32_t context = 0;
  uint32_t quiesced = 0;  // quiesce() calls so far: with the context, the meeting's key
  std::vector<int> dsp_of_rank;
};

Instance& of(cct_transport_instance* self) {
  return *static_cast<Instance*>(self->state);
}

Request& request(cct_request* req) {
  return *std::launder(reinterpret_cast<Request*>(req->opaque));
}

// Runs a p2p call; a mismatch or failure goes to last_error, as the p2p
// calls have no cct_error of their own.
template <class F>
cct_status p2p_guarded(cct_transport_instance* self, F&& f) noexcept {
  try {
    f(of(self));
    return CCT_OK;
  } catch (const MatchError& e) {
    sdk::set_error(&self->last_error, e.what());
    return CCT_ERR_INVALID_ARG;
  } catch (const Deadlock& e) {
    sdk::set_error(&self->last_error, e.what());
    return CCT_ERR_TRANSPORT;
  } catch (const std::exception& e) {
    sdk::set_error(&self->last_error, e.what());
    return CCT_ERR_INTERNAL;
  } catch (...) {
    sdk::set_error(&self->last_error, "rapidio_sim: unknown exception");
    return CCT_ERR_INTERNAL;
  }
}

int dsp(const Instance& in, int32_t rank) {
  if (rank < 0 || rank >= in.c.size)
    throw std::invalid_argument("rapidio_sim: rank " + std::to_string(rank) + " of " +
                                std::to_string(in.c.size));
  return in.dsp_of_rank[rank];
}

cct_status isend(cct_transport_instance* self, const void* buf, size_t bytes, int32_t peer,
                 uint32_t tag, cct_request* req) {
  return p2p_guarded(self, [&](Instance& in) {
    in.engine->isend(in.context, dsp(in, peer), tag, buf, bytes, *new (req->opaque) Request{});
  });
}

cct_status irecv(cct_transport_instance* self, void* buf, size_t bytes, int32_t peer, uint32_t tag,
                 cct_request* req) {
  return p2p_guarded(self, [&](Instance& in) {
    in.engine->irecv(in.context, dsp(in, peer), tag, buf, bytes, *new (req->opaque) Request{});
  });
}

cct_status test(cct_transport_instance* self, cct_request* req, int* done) {
  return p2p_guarded(self, [&](Instance& in) { *done = in.engine->test(request(req)) ? 1 : 0; });
}

cct_status waitall(cct_transport_instance* self, cct_request* reqs, size_t count) {
  return p2p_guarded(self, [&](Instance& in) { in.engine->waitall(&request(reqs), count); });
}

std::span<const int> members(const Instance& in) {
  return in.dsp_of_rank;
}

void check_root(const Instance& in, int32_t root) {
  dsp(in, root);
}

cct_status mcast_bcast(cct_transport_instance* self, void* buf, size_t bytes, int32_t root,
                       cct_error* err) {
  return sdk::guarded(err, [&] {
    Instance& in = of(self);
    check_root(in, root);
    in.engine->mcast_bcast(in.context, members(in), root, buf, bytes);
  });
}

cct_status aggregate_gather(cct_transport_instance* self, const void* send, void* recv,
                            size_t bytes_per_rank, int32_t root, cct_error* err) {
  return sdk::guarded(err, [&] {
    Instance& in = of(self);
    check_root(in, root);
    in.engine->aggregate_gather(in.context, members(in), root, send, recv, bytes_per_rank);
  });
}

cct_status aggregate_reduce(cct_transport_instance* self, const void* send, void* recv,
                            size_t count, cct_datatype dtype, cct_op op, int32_t root,
                            cct_error* err) {
  return sdk::guarded(err, [&] {
    Instance& in = of(self);
    check_root(in, root);
    in.engine->aggregate_reduce(in.context, members(in), root, send, recv, count, dtype, op);
  });
}

cct_status fetch_add(cct_transport_instance* self, uint32_t counter, uint64_t add,
                     uint64_t* old_value) {
  return p2p_guarded(self, [&](Instance& in) {
    *old_value = in.engine->fetch_add(in.context, members(in), counter, add);
  });
}

cct_status wait_ge(cct_transport_instance* self, uint32_t counter, uint64_t value) {
  return p2p_guarded(
      self, [&](Instance& in) { in.engine->wait_ge(in.context, members(in), counter, value); });
}

double now(cct_transport_instance* self) {
  return static_cast<double>(of(self).engine->now()) * 1e-12;
}

size_t stats(cct_transport_instance* self, char* buf, size_t size) {
  const std::string text = of(self).engine->stats_yaml();
  if (size > 0) {
    const size_t n = std::min(text.size(), size - 1);
    std::memcpy(buf, text.data(), n);
    buf[n] = '\0';
  }
  return text.size();
}

// Keys of the bootstrap's rendezvous count up from 0 (job.cpp); these have
// the top bit set.
cct_status quiesce(cct_transport_instance* self, cct_error* err) {
  return sdk::guarded(err, [&] {
    Instance& in = of(self);
    const uint64_t key = uint64_t{1} << 63 | uint64_t{in.context} << 32 | in.quiesced++;
    in.engine->quiesce(key, in.c.size);
  });
}

const cct_p2p_ops kP2p = {sizeof(cct_p2p_ops), CCT_ABI_VERSION, isend, irecv, test, waitall};
const cct_mcast_ops kMcast = {sizeof(cct_mcast_ops), CCT_ABI_VERSION, mcast_bcast};
const cct_aggregate_ops kAggregate = {sizeof(cct_aggregate_ops), CCT_ABI_VERSION, aggregate_gather,
                                      aggregate_reduce};
const cct_atomic_ops kAtomic = {sizeof(cct_atomic_ops), CCT_ABI_VERSION, Engine::kCounters,
                                fetch_add, wait_ge};
const cct_sim_ops kSim = {sizeof(cct_sim_ops), CCT_ABI_VERSION, now, stats, quiesce};

constexpr uint64_t kCaps = CCT_CAP_P2P | CCT_CAP_MCAST | CCT_CAP_AGGREGATE | CCT_CAP_ATOMIC;

Job& job_of(const cct_bootstrap* boot) {
  if (boot == nullptr) throw std::invalid_argument("rapidio_sim: no bootstrap");
  Job* job = current_job();
  if (job == nullptr)
    throw sdk::Unsupported(
        "rapidio_sim simulates a RapidIO fabric: it serves the ranks of a simulated job "
        "(ccautotune --transports rapidio_sim --fabric ...), not processes");
  return *job;
}

cct_status probe(const cct_bootstrap* boot, cct_error* err) {
  return sdk::guarded(err, [&] { job_of(boot); });
}

// What each rank tells the others when a communicator opens.
struct Hello {
  int32_t dsp;
  uint32_t context;  // rank 0's is the communicator's
};

cct_status open(const cct_bootstrap* boot, cct_transport_instance** out, cct_error* err) {
  return sdk::guarded(err, [&] {
    Job& job = job_of(boot);
    const Hello mine{job.engine.current_rank(), boot->rank == 0 ? job.next_context++ : 0};
    std::vector<Hello> all(boot->size);
    if (boot->allgather(boot->ctx, &mine, all.data(), sizeof(Hello)) != CCT_OK)
      throw sdk::TransportError(CCT_ERR_TRANSPORT, "rapidio_sim: bootstrap allgather failed");
    auto in = std::make_unique<Instance>();
    in->engine = &job.engine;
    in->context = all[0].context;
    for (const Hello& h : all) in->dsp_of_rank.push_back(h.dsp);
    in->c = cct_transport_instance{.struct_size = sizeof(cct_transport_instance),
                                   .abi_version = CCT_ABI_VERSION,
                                   .rank = boot->rank,
                                   .size = boot->size,
                                   .capabilities = kCaps,
                                   .p2p = &kP2p,
                                   .mcast = &kMcast,
                                   .aggregate = &kAggregate,
                                   .atomic = &kAtomic,
                                   .state = in.get(),
                                   .sim = &kSim};
    *out = &in.release()->c;
  });
}

void close(cct_transport_instance* self) {
  if (self != nullptr) delete &of(self);
}

const cct_transport_desc kDesc = {
    .struct_size = sizeof(cct_transport_desc),
    .abi_version = CCT_ABI_VERSION,
    .name = "rapidio_sim",
    .doc =
        "simulated RapidIO fabric of DSP boards (MPIRIO seed): p2p, switch replication, "
        "aggregation, reduction and counters, in virtual time",
    .capabilities = kCaps,
    .hints = {0, 0},
    .probe = probe,
    .open = open,
    .close = close,
    .simulate = simulate};

}  // namespace
}  // namespace cct::rio

CCT_EXPORT_TRANSPORT(cct::rio::kDesc);
