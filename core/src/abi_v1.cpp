// The version 1 adapter (see abi_v1.hpp). The frozen version 1 headers are
// read here alone, into a namespace of their own, so that their types never
// meet the host's version 2 ones but where this file converts between them.
#include "abi_v1.hpp"

#include <stddef.h>
#include <stdint.h>

#include <cstdio>
#include <cstring>
#include <memory>

// The frozen headers define CCT_ABI_VERSION as 1u; the host's stays 2u.
#pragma push_macro("CCT_ABI_VERSION")
#undef CCT_ABI_VERSION
namespace cct::abi_v1::v1 {
// Declared first: the header's `typedef struct cct_transport_instance ...`
// would otherwise name the host's struct of that name.
struct cct_transport_instance;
#include "cct/abi/v1/algorithm.h"
}  // namespace cct::abi_v1::v1
#pragma pop_macro("CCT_ABI_VERSION")

namespace cct::abi_v1 {
namespace {

constexpr uint32_t kVersion = 1;

// Everything below reads or copies version 1 structs as the host's: that
// holds only while each version 1 field lies where version 2 has it.
#define CCT_SAME_FIELD(type, field)                                     \
  static_assert(offsetof(v1::type, field) == offsetof(::type, field) && \
                    sizeof(v1::type::field) == sizeof(::type::field),   \
                #type "." #field " is not where version 1 has it")
#define CCT_SAME_SIZE(type) \
  static_assert(sizeof(v1::type) == sizeof(::type), #type " changed size since version 1")

// The host passes a copy of these, stamped as version 1.
CCT_SAME_FIELD(cct_comm, struct_size);
CCT_SAME_FIELD(cct_comm, abi_version);
CCT_SAME_FIELD(cct_comm, rank);
CCT_SAME_FIELD(cct_comm, size);
CCT_SAME_FIELD(cct_comm, transport);
CCT_SAME_FIELD(cct_comm, nlevels);
CCT_SAME_FIELD(cct_comm, levels);
CCT_SAME_FIELD(cct_comm, level_transport);
CCT_SAME_FIELD(cct_comm, library);
CCT_SAME_FIELD(cct_comm, timeout_s);
CCT_SAME_SIZE(cct_comm);
CCT_SAME_FIELD(cct_coll_args, struct_size);  // version 2 appends to cct_coll_args
CCT_SAME_FIELD(cct_coll_args, abi_version);
CCT_SAME_FIELD(cct_coll_args, collective);
CCT_SAME_FIELD(cct_coll_args, sendbuf);
CCT_SAME_FIELD(cct_coll_args, recvbuf);
CCT_SAME_FIELD(cct_coll_args, count);
CCT_SAME_FIELD(cct_coll_args, dtype);
CCT_SAME_FIELD(cct_coll_args, op);
CCT_SAME_FIELD(cct_coll_args, root);
CCT_SAME_FIELD(cct_coll_args, tag);
CCT_SAME_FIELD(cct_bootstrap, struct_size);  // version 2 appends to cct_bootstrap
CCT_SAME_FIELD(cct_bootstrap, abi_version);
CCT_SAME_FIELD(cct_bootstrap, rank);
CCT_SAME_FIELD(cct_bootstrap, size);
CCT_SAME_FIELD(cct_bootstrap, node);
CCT_SAME_FIELD(cct_bootstrap, nodes);
CCT_SAME_FIELD(cct_bootstrap, job_key);
CCT_SAME_FIELD(cct_bootstrap, ctx);
CCT_SAME_FIELD(cct_bootstrap, allgather);
CCT_SAME_FIELD(cct_bootstrap, barrier);
CCT_SAME_FIELD(cct_bootstrap, mpi_comm);
CCT_SAME_FIELD(cct_bootstrap, timeout_s);
// The registry reads these of a version 1 library through the host's types.
CCT_SAME_FIELD(cct_algorithm_set, struct_size);
CCT_SAME_FIELD(cct_algorithm_set, abi_version);
CCT_SAME_FIELD(cct_algorithm_set, count);
CCT_SAME_FIELD(cct_algorithm_set, algorithms);
CCT_SAME_SIZE(cct_algorithm_set);
CCT_SAME_FIELD(cct_algorithm_desc, struct_size);
CCT_SAME_FIELD(cct_algorithm_desc, abi_version);
CCT_SAME_FIELD(cct_algorithm_desc, name);
CCT_SAME_FIELD(cct_algorithm_desc, doc);
CCT_SAME_FIELD(cct_algorithm_desc, collective);
CCT_SAME_FIELD(cct_algorithm_desc, required_caps);
CCT_SAME_FIELD(cct_algorithm_desc, limits);
CCT_SAME_FIELD(cct_algorithm_desc, min_ranks);
CCT_SAME_FIELD(cct_algorithm_desc, max_ranks);
CCT_SAME_FIELD(cct_algorithm_desc, params);
CCT_SAME_FIELD(cct_algorithm_desc, nparams);
CCT_SAME_FIELD(cct_param_desc, name);
CCT_SAME_FIELD(cct_param_desc, doc);
CCT_SAME_FIELD(cct_param_desc, type);
CCT_SAME_FIELD(cct_param_desc, default_value);
CCT_SAME_FIELD(cct_param_desc, candidates);
CCT_SAME_FIELD(cct_param_desc, ncandidates);
CCT_SAME_FIELD(cct_param_desc, lo);
CCT_SAME_FIELD(cct_param_desc, hi);
CCT_SAME_FIELD(cct_param_desc, step);
CCT_SAME_FIELD(cct_param_desc, step_kind);
CCT_SAME_SIZE(cct_param_desc);
CCT_SAME_FIELD(cct_transport_desc, struct_size);
CCT_SAME_FIELD(cct_transport_desc, abi_version);
CCT_SAME_FIELD(cct_transport_desc, name);
CCT_SAME_FIELD(cct_transport_desc, doc);
CCT_SAME_FIELD(cct_transport_desc, capabilities);
CCT_SAME_FIELD(cct_transport_desc, hints);
CCT_SAME_FIELD(cct_transport_desc, probe);
CCT_SAME_FIELD(cct_transport_desc, open);
CCT_SAME_FIELD(cct_transport_desc, close);
CCT_SAME_FIELD(cct_transport_desc, simulate);
CCT_SAME_SIZE(cct_transport_desc);
// A version 1 plugin is handed these as the host made them.
CCT_SAME_SIZE(cct_error);
CCT_SAME_SIZE(cct_level);
CCT_SAME_SIZE(cct_library);
CCT_SAME_SIZE(cct_transport_instance);
CCT_SAME_SIZE(cct_p2p_ops);
CCT_SAME_SIZE(cct_shm_ops);
CCT_SAME_SIZE(cct_status);

#undef CCT_SAME_FIELD
#undef CCT_SAME_SIZE

// A version 1 algorithm's plan and the communicator it was prepared on,
// which the algorithm may keep pointing at until destroy().
struct Plan {
  v1::cct_comm comm;
  void* plan = nullptr;
};

// The host's struct as version 1 sees it: its version 1 prefix, stamped
// with version 1 and version 1's size.
template <class V1, class Host>
V1 stamped(const Host& host) {
  V1 copy;
  std::memcpy(&copy, &host, sizeof copy);
  copy.struct_size = sizeof copy;
  copy.abi_version = kVersion;
  return copy;
}

// Why version 1 cannot express this call, or null.
const char* inexpressible(const cct_coll_args& a) {
  if (a.sendmem == CCT_MEMORY_DEVICE || a.recvmem == CCT_MEMORY_DEVICE)
    return "built for plugin ABI version 1, which takes buffers in host memory only, not device "
           "memory";
  if (a.sendcounts || a.sdispls || a.recvcounts || a.rdispls)
    return "built for plugin ABI version 1, which has no per-rank counts";
  return nullptr;
}

cct_status refuse(cct_error* err, cct_status status, const char* why) {
  std::snprintf(err->message, sizeof err->message, "%s", why);
  return status;
}

// cct_error and cct_status are the same in both versions (asserted above).
v1::cct_error* v1_error(cct_error* err) {
  return reinterpret_cast<v1::cct_error*>(err);
}

cct_status host_status(v1::cct_status s) {
  return static_cast<cct_status>(s);
}

cct_algorithm_desc metadata_of(const v1::cct_algorithm_desc& d) {
  return cct_algorithm_desc{.struct_size = sizeof(cct_algorithm_desc),
                            .abi_version = CCT_ABI_VERSION,
                            .name = d.name,
                            .doc = d.doc,
                            .collective = static_cast<cct_collective>(d.collective),
                            .required_caps = d.required_caps,
                            .limits = d.limits,
                            .min_ranks = d.min_ranks,
                            .max_ranks = d.max_ranks,
                            .params = reinterpret_cast<const cct_param_desc*>(d.params),
                            .nparams = d.nparams};
}

}  // namespace

const std::size_t kAlgorithmSetSize = sizeof(v1::cct_algorithm_set);
const std::size_t kAlgorithmDescSize = sizeof(v1::cct_algorithm_desc);
const int kCollectiveCount = v1::CCT_COLLECTIVE_COUNT;

void stamp(cct_bootstrap* boot) {
  boot->struct_size = sizeof(v1::cct_bootstrap);
  boot->abi_version = kVersion;
}

Algorithm::Algorithm(const void* v1_desc)
    : plugin_(static_cast<const v1::cct_algorithm_desc*>(v1_desc)),
      metadata_(metadata_of(*plugin_)) {}

bool Algorithm::has_functions() const {
  return plugin_->can_use && plugin_->prepare && plugin_->run && plugin_->destroy;
}

cct_status Algorithm::can_use(const cct_comm* comm, const cct_coll_args* args,
                              const int64_t* params, cct_error* why) const {
  if (const char* no = inexpressible(*args)) return refuse(why, CCT_ERR_UNSUPPORTED, no);
  const auto v1_comm = stamped<v1::cct_comm>(*comm);
  const auto v1_args = stamped<v1::cct_coll_args>(*args);
  return host_status(plugin_->can_use(&v1_comm, &v1_args, params, v1_error(why)));
}

cct_status Algorithm::prepare(const cct_comm* comm, const int64_t* params, void** plan,
                              cct_error* err) const {
  auto wrapped = std::make_unique<Plan>(Plan{.comm = stamped<v1::cct_comm>(*comm)});
  const v1::cct_status s = plugin_->prepare(&wrapped->comm, params, &wrapped->plan, v1_error(err));
  if (s == v1::CCT_OK) *plan = wrapped.release();
  return host_status(s);
}

cct_status Algorithm::run(void* plan, const cct_coll_args* args, cct_error* err) const {
  if (const char* no = inexpressible(*args)) return refuse(err, CCT_ERR_INVALID_ARG, no);
  const auto v1_args = stamped<v1::cct_coll_args>(*args);
  return host_status(plugin_->run(static_cast<Plan*>(plan)->plan, &v1_args, v1_error(err)));
}

void Algorithm::destroy(void* plan) const {
  const std::unique_ptr<Plan> wrapped(static_cast<Plan*>(plan));
  plugin_->destroy(wrapped->plan);
}

}  // namespace cct::abi_v1
