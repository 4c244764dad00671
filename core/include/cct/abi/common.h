/*
 * ccautotune plugin ABI: common definitions.
 *
 * Everything a plugin and the host exchange crosses the library boundary as
 * the plain C types declared in the cct/abi/ headers. No C++ type, no exception and no
 * allocation owned by one side and freed by the other ever crosses it.
 *
 * Versioning: every struct that a plugin exports or the host hands to a
 * plugin starts with `struct_size` (sizeof the struct as the writer compiled
 * it) and `abi_version` (CCT_ABI_VERSION as the writer compiled it). A reader
 * refuses a struct whose abi_version it does not know and never reads past
 * struct_size. A field added to the end of a struct within a version is
 * read only by a reader that finds struct_size covering it; a writer of an
 * older build simply has a smaller struct_size.
 *
 * Versions:
 *   1  the first release; its headers are frozen in cct/abi/v1/, and a host
 *      of version 2 still loads and runs its plugins (an adapter gives them
 *      version 1 structs and never calls them with what version 1 cannot
 *      express: a collective it did not have, device memory).
 *   2  the collectives with per-rank counts (cct_coll_args grew counts and
 *      displacements and a memory kind per buffer); within it,
 *      cct_bootstrap grew `host`, the transport under one that stages
 *      through another (cuda), and cct_device_ops grew `locate`, the
 *      memory kind of an address. Every struct keeps the layout of version 1
 *      at its start: version 2 only appends.
 */
#ifndef CCT_ABI_COMMON_H
#define CCT_ABI_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version this header describes. Exported symbols carry it in their
 * name too (cct_algorithms_v2, cct_transport_v2). */
#define CCT_ABI_VERSION 2u

/* Result of every fallible call across the boundary. */
typedef enum cct_status {
  CCT_OK = 0,
  /* "Cannot run here": a normal answer (capability missing, limit not met).
   * The caller falls back to another algorithm; it never aborts. */
  CCT_ERR_UNSUPPORTED = 1,
  CCT_ERR_INVALID_ARG = 2, /* caller passed something the ABI forbids */
  CCT_ERR_NO_MEMORY = 3,
  CCT_ERR_TRANSPORT = 4, /* the transport failed (peer gone, syscall failed) */
  CCT_ERR_INTERNAL = 5,  /* a bug or an unexpected exception in the plugin */
  CCT_ERR_ABI = 6,       /* struct_size / abi_version not understood */
  /* A wait made no progress for the instance's timeout
   * (cct_bootstrap.timeout_s); the reason names the ranks it waited for. */
  CCT_ERR_TIMEOUT = 7
} cct_status;

/* Room for a human-readable reason, filled by the callee when it returns
 * anything but CCT_OK. Owned by the caller; the callee writes a
 * NUL-terminated string of at most CCT_ERROR_LEN - 1 characters. */
#define CCT_ERROR_LEN 256
typedef struct cct_error {
  char message[CCT_ERROR_LEN];
} cct_error;

/* The collectives. Values are stable: they appear in profiles by name but
 * in plugin tables by value. cct_coll_args (cct/abi/algorithm.h) states
 * each one's arguments. */
typedef enum cct_collective {
  CCT_BARRIER = 0,
  CCT_BCAST = 1,
  CCT_GATHER = 2,
  CCT_SCATTER = 3,
  CCT_REDUCE = 4,
  CCT_ALLREDUCE = 5,
  CCT_ALLGATHER = 6,
  CCT_ALLTOALL = 7,
  CCT_REDUCE_SCATTER_BLOCK = 8,
  CCT_REDUCE_SCATTER = 9,
  CCT_ALLGATHERV = 10,
  CCT_SCAN = 11,
  CCT_EXSCAN = 12,
  CCT_GATHERV = 13,
  CCT_SCATTERV = 14,
  CCT_ALLTOALLV = 15,
  CCT_COLLECTIVE_COUNT = 16
} cct_collective;

/* Element types. Integer reductions wrap modulo 2^bits (two's complement),
 * 8-bit sums included; they never saturate. */
typedef enum cct_datatype {
  CCT_INT8 = 0,
  CCT_INT16 = 1,
  CCT_INT32 = 2,
  CCT_INT64 = 3,
  CCT_UINT8 = 4,
  CCT_UINT16 = 5,
  CCT_UINT32 = 6,
  CCT_UINT64 = 7,
  CCT_FLOAT = 8,
  CCT_DOUBLE = 9,
  CCT_DATATYPE_COUNT = 10
} cct_datatype;

/* Reduction operators. All four are commutative and associative on
 * integers; on floating point the order of operands is the algorithm's. */
typedef enum cct_op {
  CCT_SUM = 0,
  CCT_PROD = 1,
  CCT_MIN = 2,
  CCT_MAX = 3,
  CCT_OP_COUNT = 4
} cct_op;

/* Transport capabilities, a bit set. An algorithm lists the bits it needs;
 * it is only ever bound to a transport that grants all of them. */
#define CCT_CAP_P2P ((uint64_t)1 << 0)       /* cct_p2p_ops */
#define CCT_CAP_SHM ((uint64_t)1 << 1)       /* cct_shm_ops */
#define CCT_CAP_MCAST ((uint64_t)1 << 2)     /* cct_mcast_ops */
#define CCT_CAP_AGGREGATE ((uint64_t)1 << 3) /* cct_aggregate_ops */
#define CCT_CAP_ATOMIC ((uint64_t)1 << 4)    /* cct_atomic_ops */
#define CCT_CAP_DEVICE ((uint64_t)1 << 5)    /* cct_device_ops */
#define CCT_CAP_SINGLE_COPY                      \
  ((uint64_t)1 << 6) /* p2p moves large messages \
                        with one copy (CMA etc.) */
/* Granted by the host, not a transport: the communicator's ranks are in a
 * collective library whose own collectives cct_comm.library runs (inside
 * an MPI program: the MPI library's). */
#define CCT_CAP_LIBRARY ((uint64_t)1 << 7)

/* Where a buffer lives (cct_coll_args.sendmem, recvmem). */
typedef enum cct_memory_kind {
  CCT_MEMORY_HOST = 0,  /* memory the CPU reads and writes */
  CCT_MEMORY_DEVICE = 1 /* an accelerator's memory (a CUDA device pointer) */
} cct_memory_kind;

/* Marks an in-place collective, as MPI_IN_PLACE does (see cct_coll_args). */
#define CCT_IN_PLACE ((void*)1)

#ifdef __cplusplus
}
#endif

#endif /* CCT_ABI_COMMON_H */
