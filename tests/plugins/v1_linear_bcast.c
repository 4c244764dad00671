/* A plugin built for plugin ABI version 1 from its frozen headers alone, as
 * a library released then would be: a linear bcast. The root isends the
 * buffer to every other rank, `window` sends in flight before it waits for
 * them; the others irecv it. It checks that every struct the host hands it
 * says version 1, so the registry tests prove that a version 2 host runs it
 * through its adapter. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cct/abi/v1/export.h"

typedef struct plan {
  const cct_comm* comm; /* the host's; kept until destroy, as version 1 allows */
  int64_t window;
  cct_request* reqs; /* window entries */
} plan;

static const size_t dtype_bytes[CCT_DATATYPE_COUNT] = {1, 2, 4, 8, 1, 2, 4, 8, 4, 8};

static cct_status say(cct_error* err, cct_status s, const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  const int n = snprintf(err->message, sizeof err->message, "v1_linear: ");
  vsnprintf(err->message + n, sizeof err->message - (size_t)n, format, ap);
  va_end(ap);
  return s;
}

static cct_status check_comm(const cct_comm* comm, cct_error* err) {
  if (comm->abi_version != 1 || comm->struct_size != sizeof(cct_comm))
    return say(err, CCT_ERR_ABI, "handed a communicator of ABI version %u, %u bytes",
               comm->abi_version, comm->struct_size);
  return CCT_OK;
}

static cct_status check_args(const cct_coll_args* args, cct_error* err) {
  if (args->abi_version != 1 || args->struct_size != sizeof(cct_coll_args))
    return say(err, CCT_ERR_ABI, "handed arguments of ABI version %u, %u bytes", args->abi_version,
               args->struct_size);
  return CCT_OK;
}

static cct_status can_use(const cct_comm* comm, const cct_coll_args* args, const int64_t* params,
                          cct_error* why) {
  cct_status s = check_comm(comm, why);
  if (s == CCT_OK) s = check_args(args, why);
  if (s == CCT_OK && params[0] < 1)
    s = say(why, CCT_ERR_UNSUPPORTED, "window %lld < 1", (long long)params[0]);
  return s;
}

static cct_status prepare(const cct_comm* comm, const int64_t* params, void** out, cct_error* err) {
  cct_status s = check_comm(comm, err);
  if (s != CCT_OK) return s;
  if (params[0] < 1) return say(err, CCT_ERR_UNSUPPORTED, "window %lld < 1", (long long)params[0]);
  plan* p = malloc(sizeof *p);
  cct_request* reqs = calloc((size_t)params[0], sizeof *reqs);
  if (!p || !reqs) {
    free(p), free(reqs);
    return say(err, CCT_ERR_NO_MEMORY, "out of memory");
  }
  p->comm = comm;
  p->window = params[0];
  p->reqs = reqs;
  *out = p;
  return CCT_OK;
}

/* The root's part: the buffer to every other rank, at most `window` sends
 * posted before a waitall. */
static cct_status send_all(const plan* p, const cct_coll_args* args, size_t bytes) {
  cct_transport_instance* t = p->comm->transport;
  int64_t posted = 0;
  cct_status s = CCT_OK;
  for (int32_t r = 0; r < p->comm->size && s == CCT_OK; ++r) {
    if (r == args->root) continue;
    s = t->p2p->isend(t, args->recvbuf, bytes, r, args->tag, &p->reqs[posted++]);
    if (s == CCT_OK && posted == p->window) s = t->p2p->waitall(t, p->reqs, (size_t)posted);
    if (posted == p->window) posted = 0;
  }
  if (s == CCT_OK && posted > 0) s = t->p2p->waitall(t, p->reqs, (size_t)posted);
  return s;
}

static cct_status run(void* vp, const cct_coll_args* args, cct_error* err) {
  const plan* p = vp;
  cct_transport_instance* t = p->comm->transport;
  cct_status s = check_args(args, err);
  if (s != CCT_OK) return s;
  const size_t bytes = args->count * dtype_bytes[args->dtype];
  if (p->comm->rank == args->root) {
    s = send_all(p, args, bytes);
  } else {
    s = t->p2p->irecv(t, args->recvbuf, bytes, args->root, args->tag, &p->reqs[0]);
    if (s == CCT_OK) s = t->p2p->waitall(t, p->reqs, 1);
  }
  return s == CCT_OK ? s : say(err, s, "%s", t->last_error.message);
}

static void destroy(void* vp) {
  plan* p = vp;
  free(p->reqs);
  free(p);
}

static const int64_t windows[] = {1, 4, 16};
static const cct_param_desc params[] = {{"window",
                                         "sends the root has in flight before it waits for them",
                                         CCT_PARAM_INT, 4, windows, 3, 0, 0, 0, CCT_STEP_ADD}};
static const cct_algorithm_desc v1_linear = {sizeof(cct_algorithm_desc),
                                             CCT_ABI_VERSION,
                                             "v1_linear",
                                             "linear bcast built for ABI v1",
                                             CCT_BCAST,
                                             CCT_CAP_P2P,
                                             0,
                                             1,
                                             0,
                                             params,
                                             1,
                                             can_use,
                                             prepare,
                                             run,
                                             destroy};
static const cct_algorithm_desc* const list[] = {&v1_linear};
static const cct_algorithm_set set = {sizeof(cct_algorithm_set), CCT_ABI_VERSION, 1, list};
CCT_EXPORT_ALGORITHMS(set)
