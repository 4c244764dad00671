/*
 * ccautotune runtime: the C API.
 *
 * A C program calls cct_init once, the collectives, then cct_finalize. The
 * runtime is built from the environment (see cct/session.hpp): a program
 * started by `cclaunch -n N prog` joins that launch, any other is a job of
 * one rank. Every call returns CCT_OK or a status with the reason in *err
 * (err may be NULL). Argument conventions are those of cct_coll_args
 * (cct/abi/algorithm.h), CCT_IN_PLACE included. cct_run takes every
 * collective; the others are its shorthands for the first eight.
 */
#ifndef CCT_CCT_H
#define CCT_CCT_H

#include "cct/abi/algorithm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cct_runtime cct_runtime;

/* Collective. *out is the caller's until cct_finalize. */
cct_status cct_init(cct_runtime** out, cct_error* err);
/* Collective. Prints the stats table first when CCT_STATS=1 (rank 0). */
void cct_finalize(cct_runtime* rt);

int cct_rank(const cct_runtime* rt);
int cct_size(const cct_runtime* rt);

/* Any collective, as cct_coll_args states it; args->tag is the runtime's
 * and ignored. A program built against an older or newer header passes its
 * own struct_size: the fields both know are read, the vector counts and
 * memory kinds it lacks are taken as NULL and host memory. Buffers in
 * device memory (sendmem, recvmem: CCT_MEMORY_DEVICE, on some ranks or all)
 * go through host copies where the chosen algorithm takes host memory
 * only, made by the device transport (cuda) cct_init opened where the
 * machine has a GPU; without one such a call fails, saying why. */
cct_status cct_run(cct_runtime* rt, const cct_coll_args* args, cct_error* err);

cct_status cct_barrier(cct_runtime* rt, cct_error* err);
cct_status cct_bcast(cct_runtime* rt, void* buf, size_t count, cct_datatype dtype, int root,
                     cct_error* err);
cct_status cct_gather(cct_runtime* rt, const void* send, void* recv, size_t count,
                      cct_datatype dtype, int root, cct_error* err);
cct_status cct_scatter(cct_runtime* rt, const void* send, void* recv, size_t count,
                       cct_datatype dtype, int root, cct_error* err);
cct_status cct_reduce(cct_runtime* rt, const void* send, void* recv, size_t count,
                      cct_datatype dtype, cct_op op, int root, cct_error* err);
cct_status cct_allreduce(cct_runtime* rt, const void* send, void* recv, size_t count,
                         cct_datatype dtype, cct_op op, cct_error* err);
cct_status cct_allgather(cct_runtime* rt, const void* send, void* recv, size_t count,
                         cct_datatype dtype, cct_error* err);
cct_status cct_alltoall(cct_runtime* rt, const void* send, void* recv, size_t count,
                        cct_datatype dtype, cct_error* err);

#ifdef __cplusplus
}
#endif

#endif /* CCT_CCT_H */
