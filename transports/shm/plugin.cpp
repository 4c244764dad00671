// The shm transport's C face: descriptor, operation tables, and the
// trampolines that keep every exception on this side of the ABI.
#include <cstddef>
#include <cstdio>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

#include "cct/abi/export.h"
#include "cct/sdk/algorithm.hpp"
#include "instance.hpp"
#include "wait.hpp"

namespace cct::shm {
namespace {

// The p2p calls have no cct_error: the P2p engine writes its own failures
// to the instance's last_error; only an allocation failure (a queue
// growing) can throw, and it is reported there too.
template <class F>
cct_status guarded_p2p(cct_transport_instance* self, F&& f) noexcept {
  cct_status result = CCT_OK;
  const cct_status thrown = sdk::guarded(&self->last_error, [&] { result = f(); });
  return thrown != CCT_OK ? thrown : result;
}

cct_status p2p_isend(cct_transport_instance* self, const void* buf, size_t bytes, int32_t peer,
                     uint32_t tag, cct_request* req) {
  return guarded_p2p(self,
                     [&] { return Instance::of(self).p2p().isend(buf, bytes, peer, tag, req); });
}

cct_status p2p_irecv(cct_transport_instance* self, void* buf, size_t bytes, int32_t peer,
                     uint32_t tag, cct_request* req) {
  return guarded_p2p(self,
                     [&] { return Instance::of(self).p2p().irecv(buf, bytes, peer, tag, req); });
}

cct_status p2p_test(cct_transport_instance* self, cct_request* req, int* done) {
  return guarded_p2p(self, [&] { return Instance::of(self).p2p().test(req, done); });
}

cct_status p2p_waitall(cct_transport_instance* self, cct_request* reqs, size_t count) {
  return guarded_p2p(self, [&] { return Instance::of(self).p2p().waitall(reqs, count); });
}

cct_status shm_alloc(cct_transport_instance* self, size_t bytes_per_rank, cct_shm_region* out,
                     cct_error* err) {
  return sdk::guarded(err, [&] {
    if (out == nullptr) throw std::invalid_argument("shm alloc: no region to fill");
    Instance::of(self).regions().alloc(bytes_per_rank, out);
  });
}

void shm_free(cct_transport_instance* self, cct_shm_region* region) {
  Instance::of(self).regions().free(region);
}

void shm_wait_u64(cct_transport_instance* self, const uint64_t* flag, uint64_t value,
                  cct_wait_cmp cmp) {
  const Instance& instance = Instance::of(self);
  if (!wait_for(flag, value, cmp, instance.waits()))
    sdk::guarded(&self->last_error, [&] {
      std::snprintf(self->last_error.message, sizeof self->last_error.message, "%s",
                    instance.stalled_on_flag().c_str());
    });
}

void check_bootstrap(const cct_bootstrap* boot) {
  if (boot == nullptr) throw std::invalid_argument("shm: no bootstrap");
  // timeout_s, added within version 1, is read only where struct_size has it.
  if (boot->abi_version != CCT_ABI_VERSION ||
      boot->struct_size < offsetof(cct_bootstrap, timeout_s))
    throw sdk::TransportError(CCT_ERR_ABI, "shm: bootstrap of ABI version " +
                                               std::to_string(boot->abi_version) + ", size " +
                                               std::to_string(boot->struct_size));
  if (boot->nodes > 1)
    throw sdk::Unsupported("ranks on " + std::to_string(boot->nodes) +
                           " nodes and shm is node-local");
  if (boot->size < 1 || boot->rank < 0 || boot->rank >= boot->size || boot->job_key == nullptr)
    throw std::invalid_argument("shm: bootstrap with rank " + std::to_string(boot->rank) + " of " +
                                std::to_string(boot->size) + " or without a job key");
}

cct_status probe(const cct_bootstrap* boot, cct_error* err) {
  return sdk::guarded(err, [&] { check_bootstrap(boot); });
}

cct_status open(const cct_bootstrap* boot, cct_transport_instance** out, cct_error* err) {
  return sdk::guarded(err, [&] {
    check_bootstrap(boot);
    if (out == nullptr) throw std::invalid_argument("shm open: nowhere to put the instance");
    *out = (new Instance(*boot))->c_instance();
  });
}

// Local: an unlinked segment outlives this rank's mapping for as long as a
// peer maps it, and every message this rank sent that a peer may still read
// from its memory belongs to a completed request (single-copy sends complete
// only when read). So close never waits for the other ranks, which would
// deadlock a rank closing while unwinding from an error.
void close(cct_transport_instance* self) {
  if (self != nullptr) delete &Instance::of(self);
}

const cct_transport_desc kDesc = {
    sizeof(cct_transport_desc),
    CCT_ABI_VERSION,
    "shm",
    "node-local shared memory: p2p over per-pair slot rings (single copy through CMA for "
    "large messages), shared regions",
    CCT_CAP_P2P | CCT_CAP_SHM | CCT_CAP_SINGLE_COPY,
    {0, 0},
    probe,
    open,
    close,
};

}  // namespace

const cct_p2p_ops kP2pOps = {sizeof(cct_p2p_ops), CCT_ABI_VERSION, p2p_isend,
                             p2p_irecv,           p2p_test,        p2p_waitall};
const cct_shm_ops kShmOps = {sizeof(cct_shm_ops), CCT_ABI_VERSION, shm_alloc, shm_free,
                             shm_wait_u64};

}  // namespace cct::shm

CCT_EXPORT_TRANSPORT(cct::shm::kDesc);
