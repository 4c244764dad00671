/* A plugin written in plain C against the C ABI alone (no SDK): a linear
 * barrier. Every rank sends an empty message to rank 0; rank 0 answers each
 * once all arrived. Used by the registry tests to prove that a C plugin
 * loads and runs, and that a descriptor without the appended `cost` does. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "cct/abi/export.h"

typedef struct plan {
  const cct_comm* comm;
  cct_request* reqs; /* size entries, allocated once in prepare */
} plan;

static cct_status can_use(const cct_comm* comm, const cct_coll_args* args, const int64_t* params,
                          cct_error* why) {
  (void)comm, (void)args, (void)params, (void)why;
  return CCT_OK;
}

static cct_status prepare(const cct_comm* comm, const int64_t* params, void** out, cct_error* err) {
  (void)params;
  plan* p = malloc(sizeof *p);
  cct_request* reqs = calloc((size_t)comm->size, sizeof *reqs);
  if (!p || !reqs) {
    free(p), free(reqs);
    snprintf(err->message, sizeof err->message, "c_linear: out of memory");
    return CCT_ERR_NO_MEMORY;
  }
  p->comm = comm;
  p->reqs = reqs;
  *out = p;
  return CCT_OK;
}

static cct_status run(void* vp, const cct_coll_args* args, cct_error* err) {
  plan* p = vp;
  cct_transport_instance* t = p->comm->transport;
  const cct_p2p_ops* ops = t->p2p;
  int n = p->comm->size;
  cct_status s = CCT_OK;
  if (p->comm->rank != 0) {
    s = ops->isend(t, NULL, 0, 0, args->tag, &p->reqs[0]);
    if (s == CCT_OK) s = ops->irecv(t, NULL, 0, 0, args->tag, &p->reqs[1]);
    if (s == CCT_OK) s = ops->waitall(t, p->reqs, 2);
  } else {
    for (int r = 1; r < n && s == CCT_OK; ++r)
      s = ops->irecv(t, NULL, 0, r, args->tag, &p->reqs[r]);
    if (s == CCT_OK && n > 1) s = ops->waitall(t, p->reqs + 1, (size_t)n - 1);
    for (int r = 1; r < n && s == CCT_OK; ++r)
      s = ops->isend(t, NULL, 0, r, args->tag, &p->reqs[r]);
    if (s == CCT_OK && n > 1) s = ops->waitall(t, p->reqs + 1, (size_t)n - 1);
  }
  if (s != CCT_OK) snprintf(err->message, sizeof err->message, "c_linear: transport status %d", s);
  return s;
}

static void destroy(void* vp) {
  plan* p = vp;
  free(p->reqs);
  free(p);
}

/* struct_size as a version 2 plugin built before `cost` was appended
 * declares it: the registry must still load it (and never predict it). */
static const cct_algorithm_desc c_linear = {offsetof(cct_algorithm_desc, cost),
                                            CCT_ABI_VERSION,
                                            "c_linear",
                                            "linear barrier written in C",
                                            CCT_BARRIER,
                                            CCT_CAP_P2P,
                                            0,
                                            1,
                                            0,
                                            NULL,
                                            0,
                                            can_use,
                                            prepare,
                                            run,
                                            destroy};
static const cct_algorithm_desc* const list[] = {&c_linear};
static const cct_algorithm_set set = {sizeof(cct_algorithm_set), CCT_ABI_VERSION, 1, list};
CCT_EXPORT_ALGORITHMS(set)
