/*
 * ccautotune plugin ABI: transports.
 *
 * A transport plugin library exports one cct_transport_desc through
 * CCT_EXPORT_TRANSPORT (cct/abi/export.h). The host opens it once per
 * communicator with a cct_bootstrap; the resulting cct_transport_instance
 * carries nullable operation tables. A NULL table means "not supported":
 * the host never binds an algorithm that needs it, and a plugin never
 * aborts for lack of one.
 *
 * Threading: an instance is used by one thread of its rank at a time.
 */
#ifndef CCT_ABI_TRANSPORT_H
#define CCT_ABI_TRANSPORT_H

#include "cct/abi/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cct_transport_instance cct_transport_instance;

/* ----------------------------------------------------------------------
 * Bootstrap: the out-of-band channel the host gives a transport to set
 * itself up (exchange segment names, addresses, pids). Slow, only for
 * open(); never for data.
 * ---------------------------------------------------------------------- */
typedef struct cct_bootstrap {
  uint32_t struct_size; /* in: sizeof(cct_bootstrap) of the host */
  uint32_t abi_version; /* in: CCT_ABI_VERSION of the host */
  int32_t rank;         /* in: this rank in the communicator, 0..size-1 */
  int32_t size;         /* in: ranks in the communicator */
  int32_t node;         /* in: index of this rank's node, 0..nodes-1 */
  int32_t nodes;        /* in: number of nodes the communicator spans */
  /* in: a string unique to this job and communicator, usable in names of
   * system objects (e.g. "/cct-1234-0"); at most 63 characters. */
  const char* job_key;
  void* ctx; /* in: host state, passed back to the functions below */
  /* Every rank passes `bytes` bytes; `recv` (size * bytes, owned by the
   * caller) receives them in rank order. Collective over all ranks. */
  cct_status (*allgather)(void* ctx, const void* send, void* recv, size_t bytes);
  /* Returns once every rank has called it. Collective. */
  cct_status (*barrier)(void* ctx);
  /* in: inside an MPI program, a pointer to the MPI_Comm of exactly these
   * ranks in this order (the mpi transport duplicates it); else NULL. */
  const void* mpi_comm;
  /* in: seconds a wait of the opened instance (p2p waitall, shm wait_u64
   * and alloc) may go without progress before it gives up with
   * CCT_ERR_TIMEOUT, its last_error naming the ranks it waited for and
   * what they are doing; 0: wait forever (the default, as in MPI). Equal
   * on every rank (CCT_TIMEOUT). A transport in virtual time ignores it
   * (its deadlocks are found by simulate()). (Added within version 1: a
   * version 1 transport reads it only when struct_size covers it.) */
  double timeout_s;
  /* in: for a transport that moves its data through another one (one that
   * grants CCT_CAP_DEVICE stages device memory through host memory): an
   * open transport over exactly these ranks, in this order, whose p2p
   * moves host memory (shm on one node, mpi across nodes), valid until
   * this transport's close(); else NULL, and such a transport's probe()
   * refuses. (Added within version 2: read only when struct_size covers
   * it.) */
  cct_transport_instance* host;
} cct_bootstrap;

/* ----------------------------------------------------------------------
 * Requests: storage for one non-blocking operation, owned by the caller
 * (typically on its stack), so that posting an operation never allocates.
 * The caller keeps it alive and unmoved until the operation completed.
 * The contents are the transport's.
 * ---------------------------------------------------------------------- */
typedef struct cct_request {
  uint64_t opaque[16];
} cct_request;

/* Point-to-point. Messages from one sender to one receiver are matched in
 * the order the two sides post them (non-overtaking, as in MPI); `tag` must
 * be equal on both sides and a mismatch is an error (CCT_ERR_INVALID_ARG,
 * reason in the instance's last_error),
 * so a transport that can match on tags (MPI) and one that cannot (a FIFO
 * in shared memory) behave the same for a correct algorithm. A receive
 * must name its source (no wildcards) and post exactly the bytes sent. */
typedef struct cct_p2p_ops {
  uint32_t struct_size;
  uint32_t abi_version;
  cct_status (*isend)(cct_transport_instance* self, const void* buf, size_t bytes, int32_t peer,
                      uint32_t tag, cct_request* req);
  cct_status (*irecv)(cct_transport_instance* self, void* buf, size_t bytes, int32_t peer,
                      uint32_t tag, cct_request* req);
  /* *done = 1 when the request completed (its buffer is free again). */
  cct_status (*test)(cct_transport_instance* self, cct_request* req, int* done);
  /* Blocks until all `count` requests completed, progressing every other
   * pending operation of the instance meanwhile. */
  cct_status (*waitall)(cct_transport_instance* self, cct_request* reqs, size_t count);
} cct_p2p_ops;

/* A region of shared memory made by cct_shm_ops.alloc: every rank owns
 * `bytes_per_rank` bytes of it and can load and store every other rank's
 * part through `peer[r]`. Filled by the transport; the array `peer` (size
 * entries) is owned by the transport until free(). */
typedef struct cct_shm_region {
  size_t bytes_per_rank; /* out: as requested, rounded up to 128 bytes */
  void* const* peer;     /* out: peer[r] = start of rank r's part */
  void* handle;          /* out: the transport's, for free() */
} cct_shm_region;

/* How cct_shm_ops.wait_u64 compares the flag with the value. */
typedef enum cct_wait_cmp {
  CCT_WAIT_EQ = 0, /* wait until *flag == value */
  CCT_WAIT_GE = 1  /* wait until *flag >= value (monotonic counters) */
} cct_wait_cmp;

/* Shared segments between the ranks of one node. Flags are 64-bit words
 * inside a region, written with release stores and read with acquire
 * loads (std::atomic_ref in C++, __atomic builtins in C). */
typedef struct cct_shm_ops {
  uint32_t struct_size;
  uint32_t abi_version;
  /* Collective: every rank calls it with the same bytes_per_rank, in the
   * same order as its other collective calls. Memory is zeroed. Each rank's
   * part lies on that rank's NUMA node where the system allows it. */
  cct_status (*alloc)(cct_transport_instance* self, size_t bytes_per_rank, cct_shm_region* out,
                      cct_error* err);
  /* Collective. Releases what alloc made; `region` is cleared. */
  void (*free)(cct_transport_instance* self, cct_shm_region* region);
  /* Blocks until the flag satisfies cmp: spins briefly, then backs off and
   * yields the core, so ranks may outnumber cores. With a timeout
   * (cct_bootstrap.timeout_s) it returns once it has waited that long,
   * the flag unsatisfied and last_error saying why:
   * callers test the flag again (cct::sdk::SharedRegion::wait throws
   * CCT_ERR_TIMEOUT). */
  void (*wait_u64)(cct_transport_instance* self, const uint64_t* flag, uint64_t value,
                   cct_wait_cmp cmp);
} cct_shm_ops;

/* Switch-assisted replication (e.g. the RapidIO switch copies a broadcast
 * packet to every port but the one it came in on). Collective. */
typedef struct cct_mcast_ops {
  uint32_t struct_size;
  uint32_t abi_version;
  cct_status (*bcast)(cct_transport_instance* self, void* buf, size_t bytes, int32_t root,
                      cct_error* err);
} cct_mcast_ops;

/* In-switch aggregation: gather packs the payloads of all ranks on the way
 * to the root; reduce combines them element-wise in the switches.
 * Collective; `recv` matters at the root only. */
typedef struct cct_aggregate_ops {
  uint32_t struct_size;
  uint32_t abi_version;
  cct_status (*gather)(cct_transport_instance* self, const void* send, void* recv,
                       size_t bytes_per_rank, int32_t root, cct_error* err);
  cct_status (*reduce)(cct_transport_instance* self, const void* send, void* recv, size_t count,
                       cct_datatype dtype, cct_op op, int32_t root, cct_error* err);
} cct_aggregate_ops;

/* Remote atomics on counters the transport keeps (e.g. a switch counter
 * used by a barrier). Counters start at 0; `counter` < counters. */
typedef struct cct_atomic_ops {
  uint32_t struct_size;
  uint32_t abi_version;
  uint32_t counters; /* number of counters available */
  cct_status (*fetch_add)(cct_transport_instance* self, uint32_t counter, uint64_t add,
                          uint64_t* old_value);
  cct_status (*wait_ge)(cct_transport_instance* self, uint32_t counter, uint64_t value);
} cct_atomic_ops;

/* Buffers in accelerator memory (CUDA). Pointers returned by alloc are
 * device pointers; p2p and the collectives of an instance with this table
 * accept them, and host pointers too (each call finds out which it has),
 * and the two sides of a message may differ. copy and reduce_local are
 * enqueued in order on the instance's own stream and may return before
 * they complete; synchronize returns once all of them completed. p2p
 * reads and writes device memory as it is when the message moves: what
 * the caller enqueued that writes a send buffer must be complete first
 * (synchronize). */
typedef enum cct_copy_kind {
  CCT_COPY_HOST_TO_DEVICE = 0,
  CCT_COPY_DEVICE_TO_HOST = 1,
  CCT_COPY_DEVICE_TO_DEVICE = 2
} cct_copy_kind;

/* What cct_device_ops.locate says of an address. */
typedef struct cct_memory_region {
  cct_memory_kind kind;
  /* Where kind is CCT_MEMORY_DEVICE, the allocation holding the address,
   * [base, base + bytes), every address of which is device memory while it
   * lives, so that a caller may remember the answer for all of them;
   * bytes 0 where the transport does not know it (and for host memory). */
  const void* base;
  size_t bytes;
} cct_memory_region;

typedef struct cct_device_ops {
  uint32_t struct_size;
  uint32_t abi_version;
  cct_status (*alloc)(cct_transport_instance* self, size_t bytes, void** ptr, cct_error* err);
  void (*free)(cct_transport_instance* self, void* ptr);
  cct_status (*copy)(cct_transport_instance* self, void* dst, const void* src, size_t bytes,
                     cct_copy_kind kind, cct_error* err);
  /* Reduces `count` elements of src into dst, both device pointers. */
  cct_status (*reduce_local)(cct_transport_instance* self, void* dst, const void* src, size_t count,
                             cct_datatype dtype, cct_op op, cct_error* err);
  cct_status (*synchronize)(cct_transport_instance* self, cct_error* err);
  /* Where ptr points: any address, never dereferenced (a caller asks about
   * a program's buffers before it knows what they are). Local, never
   * blocks, safe from any thread. (Appended within version 2: a host reads
   * it only where struct_size covers it.) */
  cct_status (*locate)(cct_transport_instance* self, const void* ptr, cct_memory_region* region,
                       cct_error* err);
  /* How the messages posted after it are cut where they are staged through
   * host memory: chunks of chunk_bytes (0: the transport's own size). The
   * two sides of a message must post it under the same value, so an
   * algorithm sets it from its parameters, which are equal on every rank,
   * before its messages; it holds until set again. A transport whose user
   * fixed the size (cuda: CCT_CUDA_CHUNK) ignores it. Local. (Appended
   * within version 2: a host or algorithm calls it only where struct_size
   * covers it.) */
  cct_status (*set_chunk)(cct_transport_instance* self, size_t chunk_bytes, cct_error* err);
} cct_device_ops;

/* Virtual time, for transports that simulate a platform (the RapidIO
 * fabric simulator). The tuner and the runtime's statistics measure with
 * now() instead of the host's clock when an instance has this table. */
typedef struct cct_sim_ops {
  uint32_t struct_size;
  uint32_t abi_version;
  /* This rank's virtual time in seconds since its job began. */
  double (*now)(cct_transport_instance* self);
  /* The simulation's statistics so far (per-rank virtual time, packets per
   * link and switch, traffic, average flow) as YAML text, NUL-terminated,
   * into buf (size bytes). Returns the length the whole text needs, without
   * the NUL; the text is truncated when that is >= size. Local. */
  size_t (*stats)(cct_transport_instance* self, char* buf, size_t size);
  /* Collective over the instance's ranks: returns on every rank at one
   * virtual time, once nothing moves on the simulated platform any more,
   * so that what is timed next starts from the same state whatever ran
   * before (the tuner calls it before each timed call). (Appended within
   * version 2: a host calls it only where struct_size covers it.) */
  cct_status (*quiesce)(cct_transport_instance* self, cct_error* err);
} cct_sim_ops;

/* An open transport, one per communicator. Filled by the transport's open();
 * every field is owned by the transport and valid until close(). */
struct cct_transport_instance {
  uint32_t struct_size;
  uint32_t abi_version;
  int32_t rank;                       /* this rank, as in the bootstrap */
  int32_t size;                       /* ranks, as in the bootstrap */
  uint64_t capabilities;              /* CCT_CAP_* granted on this communicator; may be
                                         fewer than the descriptor's (e.g. no SHM when
                                         the ranks span nodes) */
  const cct_p2p_ops* p2p;             /* NULL: not supported */
  const cct_shm_ops* shm;             /* NULL: not supported */
  const cct_mcast_ops* mcast;         /* NULL: not supported */
  const cct_aggregate_ops* aggregate; /* NULL: not supported */
  const cct_atomic_ops* atomic;       /* NULL: not supported */
  const cct_device_ops* device;       /* NULL: not supported */
  void* state;                        /* the transport's private state */
  /* out: when a call on this instance returns anything but CCT_OK, the
   * transport writes the reason here (the p2p calls have no cct_error of
   * their own, to keep them lean). Read it before the next call. */
  cct_error last_error;
  /* Virtual time (NULL: real time, every transport between processes).
   * (Added within version 1: the host reads it only when struct_size
   * covers it.) */
  const cct_sim_ops* sim;
};

/* What the tuner may read about a transport before measuring it. Rough
 * figures; 0 means unknown. */
typedef struct cct_cost_hints {
  double latency_ns;             /* one small message, one way */
  double bandwidth_bytes_per_ns; /* one large message, one way */
} cct_cost_hints;

/* A simulated job: a transport that simulates a platform runs all of the
 * job's ranks in the calling process, each as a fiber in virtual time, and
 * calls rank_main once per rank with that rank's bootstrap (whose allgather
 * and barrier work between the fibers and take no virtual time; its node
 * and nodes fields give the rank's board and the number of boards).
 * rank_main opens the transport with that bootstrap, or with a bootstrap
 * of a subset of the ranks built on it, and uses it like any other; a
 * blocking call yields to the other fibers. */
#define CCT_SIM_DESCRIPTION_LEN 4096
typedef struct cct_sim_job {
  uint32_t struct_size; /* in: sizeof(cct_sim_job) of the host */
  uint32_t abi_version; /* in: CCT_ABI_VERSION of the host */
  /* in: ranks to simulate; 0: every endpoint of the platform; -1: none,
   * only fill `description` (and fail on a bad config) */
  int32_t ranks;
  /* in: the platform, in the transport's own terms (for rapidio_sim a
   * fabric preset name or a YAML file); NULL or "": its default. */
  const char* config;
  void* ctx; /* in: passed back to rank_main */
  /* in: runs one rank; returns 0, or non-zero when the rank failed. */
  int (*rank_main)(void* ctx, const cct_bootstrap* boot);
  /* out: the platform's canonical description (YAML, NUL-terminated, at
   * most CCT_SIM_DESCRIPTION_LEN - 1 characters): what profiles tuned on
   * it are keyed by. Filled before the first rank_main call. */
  char description[CCT_SIM_DESCRIPTION_LEN];
} cct_sim_job;

/* The descriptor a transport library exports (symbol cct_transport_v2). */
typedef struct cct_transport_desc {
  uint32_t struct_size;  /* sizeof(cct_transport_desc) */
  uint32_t abi_version;  /* CCT_ABI_VERSION */
  const char* name;      /* stable, unique: "shm", "mpi", "rapidio_sim" */
  const char* doc;       /* one line for ccinfo */
  uint64_t capabilities; /* CCT_CAP_* this transport can grant */
  cct_cost_hints hints;
  /* Can this transport serve the communicator described by boot? Returns
   * CCT_OK or CCT_ERR_UNSUPPORTED with the reason (e.g. "ranks on 2 nodes
   * and shm is node-local"). Local: no communication. The host calls it on
   * every rank and calls open() only where no rank refused. */
  cct_status (*probe)(const cct_bootstrap* boot, cct_error* err);
  /* Collective over the bootstrap's ranks. On success *out is valid until
   * close(). On failure every rank returns an error and nothing leaks. */
  cct_status (*open)(const cct_bootstrap* boot, cct_transport_instance** out, cct_error* err);
  /* Collective. Frees everything open() made. */
  void (*close)(cct_transport_instance* self);
  /* (Added within version 1: read only when struct_size covers it.)
   * NULL for a transport between real processes. Otherwise runs the job
   * (see cct_sim_job) to its end and returns CCT_OK when every rank
   * returned 0; a rank that failed, or a job that deadlocked (every fiber
   * waiting, no event left), gives an error naming the rank(s). Such a
   * transport's probe() and open() refuse bootstraps of real processes. */
  cct_status (*simulate)(cct_sim_job* job, cct_error* err);
} cct_transport_desc;

#ifdef __cplusplus
}
#endif

#endif /* CCT_ABI_TRANSPORT_H */
