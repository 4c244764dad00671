/*
 * ccautotune plugin ABI: collective algorithms.
 *
 * An algorithm library exports one cct_algorithm_set through
 * CCT_EXPORT_ALGORITHMS (cct/abi/export.h). Each cct_algorithm_desc
 * declares what the algorithm is (name, collective), what it needs
 * (capabilities, limits), what can be tuned (parameters), and three
 * functions: can_use, prepare (once per communicator and parameter values)
 * and run (per call; must not allocate on its hot path); optionally its
 * cost shape, from which the tuner predicts sizes it did not measure.
 */
#ifndef CCT_ABI_ALGORITHM_H
#define CCT_ABI_ALGORITHM_H

#include "cct/abi/common.h"
#include "cct/abi/transport.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------------------
 * Communicator, as an algorithm sees it. Built by the host, read-only for
 * the algorithm, valid until every plan prepared on it was destroyed.
 * ---------------------------------------------------------------------- */

/* Kinds of topology level, innermost first. */
typedef enum cct_level_kind {
  CCT_LEVEL_L2 = 0,      /* ranks sharing an L2 cache */
  CCT_LEVEL_L3 = 1,      /* ranks sharing an L3 cache */
  CCT_LEVEL_NUMA = 2,    /* ranks on one NUMA node */
  CCT_LEVEL_PACKAGE = 3, /* ranks on one package (socket) */
  CCT_LEVEL_NODE = 4     /* ranks on one machine */
} cct_level_kind;

/* One level of the communicator's hierarchy: a partition of its ranks into
 * groups. Only levels that split the ranks are listed (a level where every
 * rank is alone, or all ranks are together, or that equals the level below
 * it, is dropped), and they nest: every group of a level is a union of
 * groups of the level below it (a level that would not nest, such as a
 * NUMA node spanning several packages, is listed in its place by size, or
 * dropped). Where two kinds give the same partition, the inner kind names
 * it. */
typedef struct cct_level {
  cct_level_kind kind;
  int32_t groups; /* number of groups at this level */
  /* group_of[r] = group (0..groups-1) of comm rank r; size entries.
   * Groups are numbered in order of their lowest rank; the lowest rank of
   * a group is its leader. */
  const int32_t* group_of;
} cct_level;

/* The collectives of the library the communicator's ranks are in (inside
 * an MPI program: the MPI library's PMPI_* calls over exactly these ranks,
 * in this order), so that the library's own choice is one more candidate
 * beside the algorithms: the `mpi` algorithm runs every call through it. */
struct cct_coll_args;
typedef struct cct_library {
  uint32_t struct_size;
  uint32_t abi_version;
  const char* name; /* the library, for logs ("Open MPI 4.1.4") */
  void* ctx;        /* the host's, passed back to run() */
  /* Collective: runs one call (any collective, dtype and op of
   * cct_coll_args, the in-place forms included) as the library's own. */
  cct_status (*run)(void* ctx, const struct cct_coll_args* args, cct_error* err);
} cct_library;

typedef struct cct_comm {
  uint32_t struct_size;
  uint32_t abi_version;
  int32_t rank; /* this rank, 0..size-1 */
  int32_t size; /* ranks in the communicator */
  /* The transport this algorithm was bound to (its capabilities cover the
   * algorithm's required_caps). */
  cct_transport_instance* transport;
  int32_t nlevels;         /* entries in levels, 0 on a flat machine */
  const cct_level* levels; /* innermost (e.g. L2) first */
  /* NULL, or nlevels entries: level_transport[i] is a transport over this
   * rank's group at level i alone, whose ranks are the group's members in
   * ascending comm rank (the leader is its rank 0), or NULL where none is
   * bound. The host binds them when the communicator spans nodes (its
   * transport, e.g. mpi, then shares no memory): at the CCT_LEVEL_NODE level
   * and every level inside it, a shared-memory transport (shm) over the
   * group. On one node, where `transport` itself shares memory, it binds
   * none. Groups at levels inside a node never span nodes. */
  cct_transport_instance* const* level_transport;
  /* The library's collectives over exactly these ranks, or NULL. Set when
   * the host grants CCT_CAP_LIBRARY. (Added within version 1: a version 1
   * reader reads it only when struct_size covers it.) */
  const cct_library* library;
  /* Seconds a wait may go without progress (CCT_TIMEOUT; 0: forever), as
   * the transports' waits apply it (cct_bootstrap.timeout_s). An algorithm
   * that waits by polling memory itself, not through a transport's wait,
   * gives up after this long with CCT_ERR_TIMEOUT and a reason naming the
   * ranks it waited for. Equal on every rank. (Added within version 1, as
   * library.) */
  double timeout_s;
} cct_comm;

/* ----------------------------------------------------------------------
 * Arguments of one collective call. Counts are in elements of dtype.
 *
 * barrier:   nothing.
 * bcast:     recvbuf holds count elements; the root's are sent to all.
 * gather:    sendbuf count elements from each rank; recvbuf size*count at
 *            root (rank r's block at offset r*count). Root in-place:
 *            sendbuf == CCT_IN_PLACE, its block already in recvbuf.
 * scatter:   sendbuf size*count at root; recvbuf count on each rank. Root
 *            in-place: recvbuf == CCT_IN_PLACE.
 * reduce:    sendbuf count on each; result in recvbuf at root. Root
 *            in-place: sendbuf == CCT_IN_PLACE, input in recvbuf.
 * allreduce: sendbuf count on each; result in recvbuf on all. In-place:
 *            sendbuf == CCT_IN_PLACE.
 * allgather: sendbuf count on each; recvbuf size*count on all. In-place:
 *            sendbuf == CCT_IN_PLACE, own block already in recvbuf.
 * alltoall:  sendbuf size*count (block r goes to rank r); recvbuf
 *            size*count (block r came from rank r). In-place: sendbuf ==
 *            CCT_IN_PLACE, recvbuf is both.
 * reduce_scatter_block: sendbuf size*count on each; recvbuf count on each:
 *            rank r gets block r (elements r*count..) of the reduction.
 *            In-place: sendbuf == CCT_IN_PLACE, the input in recvbuf
 *            (size*count), the result in its first count elements.
 * reduce_scatter: as reduce_scatter_block with blocks of recvcounts[r]
 *            elements (equal on every rank), one after another: sendbuf
 *            holds their sum, rank r gets recvcounts[r] elements. count
 *            is not used. In-place: as reduce_scatter_block.
 * allgatherv: rank r sends recvcounts[r] elements from sendbuf; every rank
 *            receives rank r's block at recvbuf + rdispls[r]. recvcounts
 *            equal on every rank; rdispls are each rank's own. count is
 *            not used. In-place: sendbuf == CCT_IN_PLACE, own block
 *            already at rdispls[rank].
 * scan:      sendbuf count on each; rank r gets the reduction over ranks
 *            0..r, in rank order. In-place: sendbuf == CCT_IN_PLACE.
 * exscan:    as scan over ranks 0..r-1; rank 0's recvbuf is left as it
 *            is. In-place: sendbuf == CCT_IN_PLACE.
 * gatherv:   sendbuf count elements from each rank (counts differ); at
 *            the root recvbuf gets rank r's block at rdispls[r], of
 *            recvcounts[r] elements (the root's arrays; NULL elsewhere).
 *            Root in-place: sendbuf == CCT_IN_PLACE, its block already at
 *            rdispls[root], count equal to recvcounts[root].
 * scatterv:  at the root sendbuf holds rank r's block at sdispls[r], of
 *            sendcounts[r] elements (the root's arrays; NULL elsewhere);
 *            each rank receives its count elements into recvbuf. Root
 *            in-place: recvbuf == CCT_IN_PLACE.
 * alltoallv: sendbuf holds the block for rank r at sdispls[r], of
 *            sendcounts[r] elements; recvbuf gets rank r's block at
 *            rdispls[r], of recvcounts[r] elements; sendcounts[j] on rank
 *            i equals recvcounts[i] on rank j. count is not used.
 *            In-place: sendbuf == CCT_IN_PLACE, the input in recvbuf at
 *            rdispls, and sendcounts, sdispls passed equal to recvcounts,
 *            rdispls.
 *
 * op is read by the reductions (reduce, allreduce, reduce_scatter_block,
 * reduce_scatter, scan, exscan), root by bcast, gather, scatter, reduce,
 * gatherv and scatterv.
 * Every rank passes equal collective, dtype, op and root, and equal count
 * where the collective reads one but for gatherv and scatterv. can_use
 * must decide only from those, the arrays stated equal above, and the
 * communicator: gatherv's, scatterv's and alltoallv's counts differ
 * between ranks and tell no rank the others'.
 *
 * Every field through `tag` has the layout of version 1. Version 2 appends
 * the per-rank counts of the vector collectives and the memory kind of
 * each buffer; a reader reads an appended field only when struct_size
 * covers it, and takes NULL counts and host memory where it does not.
 * The host always passes the whole struct of its version.
 * ---------------------------------------------------------------------- */
typedef struct cct_coll_args {
  uint32_t struct_size;
  uint32_t abi_version;
  cct_collective collective;
  const void* sendbuf;
  void* recvbuf;
  size_t count;
  cct_datatype dtype;
  cct_op op;    /* the reductions */
  int32_t root; /* the rooted collectives */
  uint32_t tag; /* base tag for this call's messages, from the host */
  /* Per-rank counts and displacements of the vector collectives, in
   * elements of dtype, `size` entries each (entry r: the block for or from
   * comm rank r; a block starts displacement elements into its buffer), or
   * NULL where the collective has no such array. The caller's, read-only,
   * valid until run returns. Which ranks pass them, and which must pass
   * equal values, is stated with each collective above. */
  const size_t* sendcounts; /* blocks of sendbuf, per destination rank */
  const size_t* sdispls;
  const size_t* recvcounts; /* blocks of recvbuf, per source rank */
  const size_t* rdispls;
  /* Where sendbuf and recvbuf live. The host passes CCT_MEMORY_DEVICE only
   * to an algorithm whose limits include CCT_LIMIT_DEVICE_MEMORY; may
   * differ between ranks, so can_use must not read them. */
  cct_memory_kind sendmem;
  cct_memory_kind recvmem;
} cct_coll_args;

/* ----------------------------------------------------------------------
 * Tunable parameters: the algorithm's table of them is the tuner's search
 * space. Values are int64 (sizes in bytes, counts, radices).
 * ---------------------------------------------------------------------- */
typedef enum cct_param_type {
  CCT_PARAM_INT = 0,  /* a plain integer (radix, count of threads) */
  CCT_PARAM_BYTES = 1 /* a size in bytes (segment size); printed as 64k */
} cct_param_type;

typedef enum cct_param_step {
  CCT_STEP_ADD = 0, /* lo, lo+step, lo+2*step, ... <= hi */
  CCT_STEP_MUL = 1  /* lo, lo*step, lo*step^2, ... <= hi (step >= 2) */
} cct_param_step;

typedef struct cct_param_desc {
  const char* name; /* stable, [a-z0-9_]+, unique within the algorithm */
  const char* doc;  /* one line */
  cct_param_type type;
  int64_t default_value;
  /* Either a candidate set (ncandidates > 0) ... */
  const int64_t* candidates;
  uint32_t ncandidates;
  /* ... or a range (ncandidates == 0). */
  int64_t lo, hi, step;
  cct_param_step step_kind;
} cct_param_desc;

/* Limits, a bit set in cct_algorithm_desc.limits. */
#define CCT_LIMIT_POW2_ONLY (1u << 0)    /* size must be a power of two */
#define CCT_LIMIT_COMMUTATIVE (1u << 1)  /* needs a commutative op */
#define CCT_LIMIT_IN_PLACE (1u << 2)     /* supports the in-place forms */
#define CCT_LIMIT_NEEDS_LEVELS (1u << 3) /* needs nlevels >= 1 */
/* run() takes buffers in device memory (cct_coll_args.sendmem, recvmem);
 * without it the host hands the algorithm host memory only. */
#define CCT_LIMIT_DEVICE_MEMORY (1u << 4)

/* ----------------------------------------------------------------------
 * Cost shape (optional): what one call costs in messages and bytes, so that
 * the tuner can predict an algorithm at communicator sizes it did not
 * measure. The tuner fits, per transport and span, a cost per message
 * (alpha) and per byte (beta), and per byte combined by the op (gamma)
 * or copied through memory (delta), Hockney style, and per byte crossing
 * the communicator's bisection (epsilon: contention), from what it
 * measured:
 *   time = o + sum over spans s of (alpha[s] * messages[s] + beta[s] *
 *          bytes[s]) + gamma * reduced_bytes + delta * copied_bytes
 *          + epsilon * bisection_bytes
 * and predicts a communicator size from the measured ones by how this
 * time changes between them (docs/cost_model.md). An algorithm states the
 * critical path of one call: the longest chain of steps that wait for each
 * other, whichever rank it runs through.
 * ---------------------------------------------------------------------- */

/* Spans: span i < comm->nlevels holds the messages between ranks in one
 * group of comm->levels[i] (and in different groups of the level inside
 * it); span comm->nlevels holds those between ranks in different groups of
 * the outermost level, or between any two ranks of a communicator without
 * levels. A flat algorithm states everything at span comm->nlevels: its
 * steps wait for their slowest link. */
#define CCT_COST_SPANS 6 /* the level kinds (5) + 1 */

typedef struct cct_cost_span {
  double messages; /* messages on the critical path, one after another */
  double bytes;    /* bytes they carry, moved one after another */
} cct_cost_span;

typedef struct cct_cost {
  /* spans[0..comm->nlevels]; the host zeroes the struct before the call. */
  cct_cost_span spans[CCT_COST_SPANS];
  /* Bytes combined with the op along the critical path (the reductions). */
  double reduced_bytes;
  /* Bytes copied through memory without a message along the critical path
   * (a shared-memory algorithm's copies into and out of shared buffers). */
  double copied_bytes;
  /* Bytes that cross between the communicator's two halves (ranks below
   * size / 2 and the rest), both ways, summed over every rank and step of
   * the call, not along the critical path: what the links between the
   * halves carry, which a network (or memory system) of limited bisection
   * bandwidth serves one after another. A ring's step crosses at two
   * places; recursive doubling's last step at every rank. */
  double bisection_bytes;
} cct_cost;

typedef struct cct_algorithm_desc {
  uint32_t struct_size; /* sizeof(cct_algorithm_desc) */
  uint32_t abi_version; /* CCT_ABI_VERSION */
  const char* name;     /* stable, [a-z0-9_]+, unique per collective across
                           all loaded libraries; profiles refer to it */
  const char* doc;      /* one line for ccinfo */
  cct_collective collective;
  uint64_t required_caps;       /* CCT_CAP_* the bound transport must grant */
  uint32_t limits;              /* CCT_LIMIT_* */
  int32_t min_ranks;            /* smallest communicator, >= 1 */
  int32_t max_ranks;            /* largest communicator, 0 = no limit */
  const cct_param_desc* params; /* nparams entries, owned by the plugin */
  uint32_t nparams;
  /* Local, cheap: can this algorithm run this call on this communicator
   * with these parameter values (nparams entries, in table order)? CCT_OK,
   * or CCT_ERR_UNSUPPORTED with the reason in *why. The host checks
   * required_caps, limits and min/max_ranks itself before calling it.
   * Decide only from what every rank passes equally (comm size, params,
   * collective, dtype, op, root, and the count and arrays that
   * cct_coll_args states equal), never from buffer addresses, memory
   * kinds or the in-place marker: each rank asks on its own, and ranks
   * that answer differently would run different algorithms. */
  cct_status (*can_use)(const cct_comm* comm, const cct_coll_args* args, const int64_t* params,
                        cct_error* why);
  /* Collective over comm: builds a plan (schedules, trees, shared buffers)
   * once, for these parameter values. *plan is the algorithm's until
   * destroy(). */
  cct_status (*prepare)(const cct_comm* comm, const int64_t* params, void** plan, cct_error* err);
  /* Collective: runs one call with a prepared plan. */
  cct_status (*run)(void* plan, const cct_coll_args* args, cct_error* err);
  /* Collective: frees the plan. */
  void (*destroy)(void* plan);
  /* Local, cheap, optional (NULL: the algorithm is measured, never
   * predicted): the cost shape of this call on a communicator of this
   * shape with these parameter values (see cct_cost). comm holds size,
   * nlevels and levels only: rank is 0, and transport, level_transport and
   * library are NULL, since the shape may be one that no job has opened.
   * args holds collective, count, dtype, op and root; the vector
   * collectives' arrays hold equal blocks of count elements; the buffers
   * are NULL. Fills *cost and returns CCT_OK, or CCT_ERR_UNSUPPORTED with
   * the reason in *why where it cannot say. (Added within version 2: a
   * reader reads it only when struct_size covers it.) */
  cct_status (*cost)(const cct_comm* comm, const cct_coll_args* args, const int64_t* params,
                     cct_cost* cost, cct_error* why);
} cct_algorithm_desc;

/* What an algorithm library exports (symbol cct_algorithms_v2). */
typedef struct cct_algorithm_set {
  uint32_t struct_size; /* sizeof(cct_algorithm_set) */
  uint32_t abi_version; /* CCT_ABI_VERSION */
  uint32_t count;
  const cct_algorithm_desc* const* algorithms; /* count entries */
} cct_algorithm_set;

#ifdef __cplusplus
}
#endif

#endif /* CCT_ABI_ALGORITHM_H */
