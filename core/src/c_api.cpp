// The C API (cct/cct.h) over cct::Session: exceptions end here.
#include "cct/cct.h"
#include "cct/collectives.hpp"
#include "cct/error.hpp"
#include "cct/sdk/algorithm.hpp"
#include "cct/session.hpp"

struct cct_runtime {
  std::unique_ptr<cct::Session> session;
};

namespace {

template <class F>
cct_status call(cct_runtime* rt, cct_error* err, F&& f) noexcept {
  if (rt == nullptr) {
    cct::sdk::set_error(err, "cct: runtime is NULL (call cct_init first)");
    return CCT_ERR_INVALID_ARG;
  }
  try {
    f(rt->session->runtime());
    return CCT_OK;
  } catch (const cct::Error& e) {
    cct::sdk::set_error(err, e.what());
    return e.status();
  } catch (...) {
    // Everything else is mapped to a status the way plugins map it.
    return cct::sdk::guarded(err, [] { throw; });
  }
}

}  // namespace

extern "C" {

cct_status cct_init(cct_runtime** out, cct_error* err) {
  return cct::sdk::guarded(err, [&] {
    *out = nullptr;
    *out = new cct_runtime{cct::Session::from_environment()};
  });
}

void cct_finalize(cct_runtime* rt) {
  delete rt;
}

int cct_rank(const cct_runtime* rt) {
  return rt->session->runtime().rank();
}
int cct_size(const cct_runtime* rt) {
  return rt->session->runtime().size();
}

cct_status cct_run(cct_runtime* rt, const cct_coll_args* args, cct_error* err) {
  return call(rt, err, [&](cct::Runtime& r) { r.run(cct::as_this_build(args)); });
}

cct_status cct_barrier(cct_runtime* rt, cct_error* err) {
  return call(rt, err, [&](cct::Runtime& r) { r.barrier(); });
}
cct_status cct_bcast(cct_runtime* rt, void* buf, size_t count, cct_datatype dtype, int root,
                     cct_error* err) {
  return call(rt, err, [&](cct::Runtime& r) { r.bcast(buf, count, dtype, root); });
}
cct_status cct_gather(cct_runtime* rt, const void* send, void* recv, size_t count,
                      cct_datatype dtype, int root, cct_error* err) {
  return call(rt, err, [&](cct::Runtime& r) { r.gather(send, recv, count, dtype, root); });
}
cct_status cct_scatter(cct_runtime* rt, const void* send, void* recv, size_t count,
                       cct_datatype dtype, int root, cct_error* err) {
  return call(rt, err, [&](cct::Runtime& r) { r.scatter(send, recv, count, dtype, root); });
}
cct_status cct_reduce(cct_runtime* rt, const void* send, void* recv, size_t count,
                      cct_datatype dtype, cct_op op, int root, cct_error* err) {
  return call(rt, err, [&](cct::Runtime& r) { r.reduce(send, recv, count, dtype, op, root); });
}
cct_status cct_allreduce(cct_runtime* rt, const void* send, void* recv, size_t count,
                         cct_datatype dtype, cct_op op, cct_error* err) {
  return call(rt, err, [&](cct::Runtime& r) { r.allreduce(send, recv, count, dtype, op); });
}
cct_status cct_allgather(cct_runtime* rt, const void* send, void* recv, size_t count,
                         cct_datatype dtype, cct_error* err) {
  return call(rt, err, [&](cct::Runtime& r) { r.allgather(send, recv, count, dtype); });
}
cct_status cct_alltoall(cct_runtime* rt, const void* send, void* recv, size_t count,
                        cct_datatype dtype, cct_error* err) {
  return call(rt, err, [&](cct::Runtime& r) { r.alltoall(send, recv, count, dtype); });
}

}  // extern "C"
