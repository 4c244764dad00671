/* A randomized differential test of the interposer (libcct_mpi.so): every
 * call of a long random sequence of blocking collectives runs twice, once
 * as MPI_<X> (which the preloaded interposer takes: the runtime's
 * algorithms, or the library where it passes the call on) and once as
 * PMPI_<X> (always Open MPI's own implementation, the reference), on two
 * copies of the same inputs, and the full buffers of both are compared on
 * every rank: the results, the gaps of derived datatypes and a guard after
 * every buffer (all prefilled with a pattern that must stay), and the send
 * buffers (which must stay unchanged).
 *
 * The sequence: one generator per call, seeded from (seed, call index), the
 * same on every rank, draws the collective, the communicator, the base
 * datatype, the count, the root, the in-place choice, the operator, and
 * the counts and displacements of all ranks for the v-collectives. Each
 * rank's data and its choice of datatype layout come from a generator
 * seeded from (seed, call index, rank in the communicator), so any rank can
 * regenerate another's inputs (the floating-point tolerance needs them),
 * and a failing call replays with the same --seed.
 *
 * Comparison: integer results and every non-reduction exactly. Floating-
 * point reductions (MPI_FLOAT, MPI_DOUBLE) against the library within the
 * bound two summation orders can differ by, for k contributing ranks and
 * eps the type's machine epsilon:
 *   SUM:      |ours - lib| <= 1.01 * (k-1) * eps * sum_i |x_i| + tiny
 *   PROD:     |ours - lib| <= 1.01 * (k-1) * eps * |lib| + tiny
 *             (inputs in [0.9, 1.1], so no underflow or overflow)
 *   MIN, MAX: exact
 * (tiny = the type's smallest normal number), and MPI_Allreduce's result
 * must be bit-identical on every rank of the communicator (rank 0's is
 * broadcast with PMPI_Bcast and compared with memcmp).
 *
 * Integer inputs stay small enough that no signed type overflows (and no
 * 8-bit type wraps: Open MPI 4.1.4 saturates 8-bit sums); MPI_UNSIGNED and
 * MPI_UINT64_T may wrap.
 *
 * With --repeat R, the calls come in groups of R that draw the same
 * collective, communicator, datatypes, counts, root and data (those of the
 * group's first call), each its own buffers and in-place choice: the
 * interposer runs a call again as the one before it without converting it
 * (interposer/run_again.hpp), with the new call's buffers.
 *
 * usage: differential_check [--seed S] [--calls N] [--seconds T] [--repeat R]
 * Rank 0 prints the seed first, the first mismatches are printed by the
 * rank that saw them, and rank 0 ends with
 *   differential_check: <np> ranks, seed S, <calls> calls, <D> differences
 * and the calls per collective. Exit status 1 when D > 0. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- random numbers: splitmix64 ---------------------------------------- */

typedef struct {
  uint64_t state;
} rng_t;

static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static uint64_t next(rng_t* r) {
  return mix64(r->state += 0x9e3779b97f4a7c15ULL);
}

/* Uniform in [0, n), n > 0. */
static uint64_t below(rng_t* r, uint64_t n) {
  return next(r) % n;
}

/* Uniform in [0, 1). */
static double uniform(rng_t* r) {
  return (next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static uint64_t seed;

/* The generator every rank shares for call `call`. */
static rng_t shared_rng(long call) {
  rng_t r = {mix64(seed ^ mix64((uint64_t)call * 2 + 1))};
  return r;
}

/* The generator of rank `rank` (in the call's communicator) for call
 * `call`; `salt` keeps independent uses apart. */
static rng_t rank_rng(long call, int rank, int salt) {
  rng_t r = {mix64(seed ^ mix64((uint64_t)call * 2 + 2) ^ mix64(((uint64_t)rank << 8) + salt + 1))};
  return r;
}

/* ---- communicators ---------------------------------------------------- */

enum { C_WORLD, C_DUP, C_PARITY, C_REVERSED, C_HALVES, C_LOW, C_SELF, NCOMM };
static const char* comm_names[NCOMM] = {"world",  "dup",      "parity", "reversed",
                                        "halves", "low_half", "self"};
static MPI_Comm pool[NCOMM]; /* MPI_COMM_NULL where this rank is not a member */
static int dup_generation = 0;

static void make_pool(int rank, int size) {
  pool[C_WORLD] = MPI_COMM_WORLD;
  PMPI_Comm_dup(MPI_COMM_WORLD, &pool[C_DUP]);
  PMPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &pool[C_PARITY]);
  PMPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &pool[C_REVERSED]);
  PMPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &pool[C_HALVES]);
  /* Only the lower half (at least rank 0): the others get MPI_COMM_NULL
   * and must skip the calls made on it. */
  int low = rank < (size + 1) / 2;
  PMPI_Comm_split(MPI_COMM_WORLD, low ? 0 : MPI_UNDEFINED, rank, &pool[C_LOW]);
  pool[C_SELF] = MPI_COMM_SELF;
}

/* Communicator churn: the runtime must drop what it keeps for a freed
 * communicator and set up a new one (which may reuse the handle). The
 * parent alternates so that the new one's rank order changes too. */
static void churn_dup(void) {
  MPI_Comm_free(&pool[C_DUP]);
  ++dup_generation;
  MPI_Comm_dup(dup_generation % 2 ? pool[C_REVERSED] : MPI_COMM_WORLD, &pool[C_DUP]);
}

static void free_pool(void) {
  for (int c = C_DUP; c <= C_LOW; ++c)
    if (pool[c] != MPI_COMM_NULL) MPI_Comm_free(&pool[c]);
}

/* ---- datatypes -------------------------------------------------------- */

enum {
  T_INT,
  T_UNSIGNED,
  T_SHORT,
  T_SCHAR,
  T_UINT8,
  T_INT64,
  T_UINT64,
  T_FLOAT,
  T_DOUBLE,
  T_BYTE,
  T_CHAR,
  NBASE
};
/* The first NREDUCIBLE bases take the arithmetic operators. */
#define NREDUCIBLE T_BYTE
static const char* base_names[NBASE] = {
    "MPI_INT",      "MPI_UNSIGNED", "MPI_SHORT",  "MPI_SIGNED_CHAR", "MPI_UINT8_T", "MPI_INT64_T",
    "MPI_UINT64_T", "MPI_FLOAT",    "MPI_DOUBLE", "MPI_BYTE",        "MPI_CHAR"};
static MPI_Datatype base_types[NBASE];
static const int base_sizes[NBASE] = {4, 4, 2, 1, 1, 8, 8, 4, 8, 1, 1};

/* How a rank describes a run of base elements: a datatype holding `per`
 * base elements at byte offsets off[] (in type map order) with extent
 * `extent`. Elements come in groups of g (1 to 4, drawn per call): the
 * predefined type counts g per group, every derived one holds one group,
 * so any two layouts of one base and g have matching type signatures. */
enum { L_PRED, L_CONTIG, L_VECTOR, L_INDEXED, L_STRUCT, L_RESIZED, NLAYOUT };
static const char* layout_names[NLAYOUT] = {"", "contig", "vector", "indexed", "struct", "resized"};
#define MAXG 4
typedef struct {
  MPI_Datatype type;
  int kind, base, g, per;
  MPI_Aint extent;
  MPI_Aint off[MAXG];
} layout_t;
static layout_t layouts[NBASE][MAXG + 1][NLAYOUT];

static MPI_Datatype commit(MPI_Datatype t) {
  MPI_Type_commit(&t);
  return t;
}

static MPI_Datatype resized(MPI_Datatype t, MPI_Aint extent) {
  MPI_Datatype r;
  MPI_Type_create_resized(t, 0, extent, &r);
  MPI_Type_free(&t);
  return r;
}

/* The derived type of `kind` over base b, g elements, with its offsets. */
static void make_layout(layout_t* L, int kind, int b, int g) {
  MPI_Datatype bt = base_types[b], t = MPI_DATATYPE_NULL;
  MPI_Aint s = base_sizes[b];
  L->kind = kind;
  L->base = b;
  L->g = g;
  L->per = g;
  switch (kind) {
    case L_PRED: /* the base type itself, g of them per group */
      L->type = bt;
      L->per = 1;
      L->extent = s;
      L->off[0] = 0;
      return;
    case L_CONTIG: /* no gap: the same bytes as g base elements */
      MPI_Type_contiguous(g, bt, &t);
      L->extent = g * s;
      for (int i = 0; i < g; ++i) L->off[i] = i * s;
      break;
    case L_VECTOR: /* every other element: a gap after each */
      MPI_Type_vector(g, 1, 2, bt, &t);
      t = resized(t, 2 * g * s);
      L->extent = 2 * g * s;
      for (int i = 0; i < g; ++i) L->off[i] = 2 * i * s;
      break;
    case L_INDEXED: { /* blocks in decreasing displacement: type map order matters */
      int lens[MAXG], displs[MAXG];
      for (int i = 0; i < g; ++i) {
        lens[i] = 1;
        displs[i] = 2 * (g - 1 - i);
        L->off[i] = displs[i] * s;
      }
      MPI_Type_indexed(g, lens, displs, bt, &t);
      L->extent = (2 * g - 1) * s;
      break;
    }
    case L_STRUCT: { /* a gap after the first element and at the end */
      int lens[MAXG];
      MPI_Aint displs[MAXG];
      MPI_Datatype types[MAXG];
      for (int i = 0; i < g; ++i) {
        lens[i] = 1;
        displs[i] = L->off[i] = (i == 0 ? 0 : i + 1) * s;
        types[i] = bt;
      }
      MPI_Type_create_struct(g, lens, displs, types, &t);
      t = resized(t, (g + 2) * s);
      L->extent = (g + 2) * s;
      break;
    }
    case L_RESIZED: /* contiguous, then one element of gap */
      MPI_Type_contiguous(g, bt, &t);
      t = resized(t, (g + 1) * s);
      L->extent = (g + 1) * s;
      for (int i = 0; i < g; ++i) L->off[i] = i * s;
      break;
  }
  L->type = commit(t);
}

static void make_types(void) {
  MPI_Datatype b[NBASE] = {MPI_INT,     MPI_UNSIGNED, MPI_SHORT,    MPI_SIGNED_CHAR,
                           MPI_UINT8_T, MPI_INT64_T,  MPI_UINT64_T, MPI_FLOAT,
                           MPI_DOUBLE,  MPI_BYTE,     MPI_CHAR};
  memcpy(base_types, b, sizeof b);
  for (int t = 0; t < NBASE; ++t)
    for (int g = 1; g <= MAXG; ++g)
      for (int k = 0; k < NLAYOUT; ++k) make_layout(&layouts[t][g][k], k, t, g);
}

static void free_types(void) {
  for (int t = 0; t < NBASE; ++t)
    for (int g = 1; g <= MAXG; ++g)
      for (int k = 1; k < NLAYOUT; ++k) MPI_Type_free(&layouts[t][g][k].type);
}

/* Instances of L's type for `units` groups, and their bytes. */
static int inst(const layout_t* L, long units) {
  return (int)(units * (L->g / L->per));
}
static size_t unit_bytes(const layout_t* L) {
  return (size_t)(L->g / L->per) * L->extent;
}

/* ---- the calls -------------------------------------------------------- */

enum {
  BARRIER,
  BCAST,
  GATHER,
  SCATTER,
  ALLGATHER,
  ALLTOALL,
  REDUCE,
  ALLREDUCE,
  RSB,
  RS,
  ALLGATHERV,
  SCAN,
  EXSCAN,
  GATHERV,
  SCATTERV,
  ALLTOALLV,
  NCOLL
};
static const char* coll_names[NCOLL] = {"barrier",        "bcast",      "gather",
                                        "scatter",        "allgather",  "alltoall",
                                        "reduce",         "allreduce",  "reduce_scatter_block",
                                        "reduce_scatter", "allgatherv", "scan",
                                        "exscan",         "gatherv",    "scatterv",
                                        "alltoallv"};
/* How often each is drawn (out of the sum). */
static const int coll_weights[NCOLL] = {3, 8, 6, 6, 7, 7, 7, 10, 6, 6, 6, 5, 5, 6, 6, 6};

enum { OP_SUM, OP_PROD, OP_MIN, OP_MAX, OP_BAND, OP_BOR, OP_MAXLOC, NOP };
static const char* op_names[NOP] = {"MPI_SUM",  "MPI_PROD", "MPI_MIN",   "MPI_MAX",
                                    "MPI_BAND", "MPI_BOR",  "MPI_MAXLOC"};
static MPI_Op op_handles[NOP];

#define MAXP 64        /* ranks in a communicator this program handles */
#define GUARD 16       /* bytes of pattern after every buffer */
#define SEND_FILL 0xA5 /* what the gaps of send buffers hold */
#define RECV_FILL 0x5A /* what receive buffers hold before the call */

/* One call's arguments, for MPI_<X> and PMPI_<X> alike; the buffers are
 * those of one copy (ours or the library's). */
typedef struct {
  int coll;
  long index;
  int slot, p, me, root, in_place, base, g, op, maxloc;
  const layout_t *sL, *rL;
  MPI_Comm comm;
  /* Buffers: s and r of sbytes and rbytes (plus a guard), NULL when the
   * rank has none; s_in_place/r_in_place pass MPI_IN_PLACE instead. */
  size_t sbytes, rbytes;
  int s_in_place, r_in_place;
  int scount, rcount;
  MPI_Datatype stype, rtype;
  int scounts[MAXP], sdispls[MAXP], rcounts[MAXP], rdispls[MAXP];
  /* The part of r that holds the result, compared with the tolerance for
   * floating-point reductions (r_from, r_len in bytes); the rest of r
   * compared exactly unless r_rest_undefined. */
  size_t r_from, r_len;
  int r_rest_undefined, r_undefined;
  long red_elems; /* reductions: elements per rank's input vector */
  long red_first; /* reductions: the input element of r's first result */
} call_t;

#define CALL(name, ...) (lib ? PMPI_##name(__VA_ARGS__) : MPI_##name(__VA_ARGS__))

/* Runs the call on buffers s, r: the interposer's MPI_<X> or, with lib,
 * the library's PMPI_<X>. */
static void invoke(const call_t* c, char* s, char* r, int lib) {
  const void* sb = c->s_in_place ? MPI_IN_PLACE : s;
  void* rb = c->r_in_place ? MPI_IN_PLACE : r;
  MPI_Datatype st = c->stype, rt = c->rtype;
  MPI_Op op = op_handles[c->op];
  switch (c->coll) {
    case BARRIER: CALL(Barrier, c->comm); break;
    case BCAST: CALL(Bcast, s, c->scount, st, c->root, c->comm); break;
    case GATHER: CALL(Gather, sb, c->scount, st, rb, c->rcount, rt, c->root, c->comm); break;
    case SCATTER: CALL(Scatter, sb, c->scount, st, rb, c->rcount, rt, c->root, c->comm); break;
    case ALLGATHER: CALL(Allgather, sb, c->scount, st, rb, c->rcount, rt, c->comm); break;
    case ALLTOALL: CALL(Alltoall, sb, c->scount, st, rb, c->rcount, rt, c->comm); break;
    case REDUCE: CALL(Reduce, sb, rb, c->rcount, rt, op, c->root, c->comm); break;
    case ALLREDUCE: CALL(Allreduce, sb, rb, c->rcount, rt, op, c->comm); break;
    case RSB: CALL(Reduce_scatter_block, sb, rb, c->rcount, rt, op, c->comm); break;
    case RS: CALL(Reduce_scatter, sb, rb, c->rcounts, rt, op, c->comm); break;
    case SCAN: CALL(Scan, sb, rb, c->rcount, rt, op, c->comm); break;
    case EXSCAN: CALL(Exscan, sb, rb, c->rcount, rt, op, c->comm); break;
    case ALLGATHERV:
      CALL(Allgatherv, sb, c->scount, st, rb, c->rcounts, c->rdispls, rt, c->comm);
      break;
    case GATHERV:
      CALL(Gatherv, sb, c->scount, st, rb, c->rcounts, c->rdispls, rt, c->root, c->comm);
      break;
    case SCATTERV:
      CALL(Scatterv, sb, c->scounts, c->sdispls, st, rb, c->rcount, rt, c->root, c->comm);
      break;
    case ALLTOALLV:
      CALL(Alltoallv, sb, c->scounts, c->sdispls, st, rb, c->rcounts, c->rdispls, rt, c->comm);
      break;
  }
}

/* ---- drawing the call ------------------------------------------------- */

/* Groups of g elements: mostly small, sometimes 0, 1 or a few hundred, and
 * rarely up to 1<<16 elements (the runtime's large-message paths). */
static long draw_units(rng_t* r, int g) {
  uint64_t x = below(r, 1000);
  if (x < 50) return 0;
  if (x < 150) return 1;
  if (x < 800) return 2 + below(r, 15);
  if (x < 995) return 17 + below(r, 300);
  return 1 + below(r, (1 << 16) / g);
}

/* A rank's layout: the predefined type half the time, else any. */
static const layout_t* draw_layout(rng_t* r, int base, int g) {
  int kind = below(r, 2) ? L_PRED : (int)below(r, NLAYOUT);
  return &layouts[base][g][kind];
}

/* Slots (in groups) for n segments of units[i] groups each, in a random
 * order with random gaps between; returns the span. */
static long place(rng_t* r, int n, const long* units, long* slot) {
  int order[MAXP];
  for (int i = 0; i < n; ++i) order[i] = i;
  for (int i = n - 1; i > 0; --i) {
    int j = (int)below(r, i + 1), t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  long at = 0;
  for (int i = 0; i < n; ++i) {
    at += below(r, 3);
    slot[order[i]] = at;
    at += units[order[i]];
  }
  return at + below(r, 2);
}

/* ---- data ------------------------------------------------------------- */

/* A base element of random value: any bytes, but for floating point a
 * finite value (so nothing depends on how NaN payloads travel). */
static void random_element(rng_t* r, int base, char* at) {
  uint64_t v = next(r);
  if (base == T_FLOAT) {
    float f = (float)((int)(v % 200001) - 100000) / 64.0f;
    memcpy(at, &f, 4);
  } else if (base == T_DOUBLE) {
    double d = ((int64_t)(v % 2000001) - 1000000) / 1024.0;
    memcpy(at, &d, 8);
  } else {
    memcpy(at, &v, base_sizes[base]);
  }
}

/* Writes n random elements where layout L puts them in a segment starting
 * at buf. */
static void fill_segment(char* buf, const layout_t* L, long n, rng_t* r) {
  for (long k = 0; k < n; ++k)
    random_element(r, L->base, buf + (k / L->per) * L->extent + L->off[k % L->per]);
}

/* Element k of a reduction input from rank `rank`: small enough that no
 * signed type overflows and no 8-bit type wraps across p ranks; PROD on
 * floating point near 1. */
static void reduction_element(rng_t* r, int base, int op, int p, char* at) {
  int64_t v;
  uint64_t u = next(r);
  if (op == OP_BAND || op == OP_BOR) {
    memcpy(at, &u, base_sizes[base]);
    return;
  }
  if (base == T_FLOAT || base == T_DOUBLE) {
    double d = op == OP_PROD ? 0.9 + 0.2 * uniform(r) : 2.0 * uniform(r) - 1.0;
    if (op == OP_SUM && u % 4 == 0) d *= 1000.0; /* magnitudes that cancel */
    if (base == T_FLOAT) {
      float f = (float)d;
      memcpy(at, &f, 4);
    } else {
      memcpy(at, &d, 8);
    }
    return;
  }
  int small = base == T_SCHAR || base == T_UINT8;
  int wraps = base == T_UNSIGNED || base == T_UINT64;
  if (op == OP_PROD) {
    /* |product| <= 2^p: fine for 8 bits up to 6 ranks, 16 bits up to 14 */
    static const int factors[4] = {1, -1, 2, 1};
    v = (small && p > 6) || p > 14 ? 1 : factors[u % 4];
    if (base == T_UINT8 && v < 0) v = 1;
    if (wraps) v = (int64_t)(u >> 40); /* wraps, as it may */
  } else if (op == OP_SUM && wraps) {
    v = (int64_t)u;
  } else {
    int64_t limit = small ? 120 / p : base == T_SHORT ? 30000 / p : 1 << 24;
    v = (int64_t)(u % (2 * limit + 1)) - limit;
    if (base == T_UINT8) v = (int64_t)(u % (250 / p + 1));
  }
  switch (base) {
    case T_INT: {
      int x = (int)v;
      memcpy(at, &x, 4);
      break;
    }
    case T_UNSIGNED: {
      unsigned x = (unsigned)v;
      memcpy(at, &x, 4);
      break;
    }
    case T_SHORT: {
      short x = (short)v;
      memcpy(at, &x, 2);
      break;
    }
    case T_SCHAR: {
      signed char x = (signed char)v;
      memcpy(at, &x, 1);
      break;
    }
    case T_UINT8: {
      uint8_t x = (uint8_t)v;
      memcpy(at, &x, 1);
      break;
    }
    case T_INT64:
    case T_UINT64: memcpy(at, &v, 8); break;
  }
}

/* Rank `rank`'s reduction input of n elements of the call (also what
 * another rank regenerates for the tolerance). */
static void reduction_input(const call_t* c, int rank, long n, char* out) {
  rng_t r = rank_rng(c->index, rank, 1);
  if (c->maxloc) { /* MPI_2INT pairs: ties on the value, index = rank */
    for (long k = 0; k < n; ++k) {
      int pair[2] = {(int)below(&r, 5), rank};
      memcpy(out + 8 * k, pair, 8);
    }
    return;
  }
  for (long k = 0; k < n; ++k)
    reduction_element(&r, c->base, c->op, c->p, out + k * base_sizes[c->base]);
}

/* ---- per-collective set-up ---------------------------------------------
 * Each fills in the call's arguments and the sizes of its buffers, and
 * writes this rank's inputs into s and r (allocated by the caller after
 * size(), then prefilled: see setup()). Two passes: size (s, r NULL) and
 * fill. */

static char* xmalloc(size_t n) {
  char* p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "differential_check: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return p;
}

/* The non-reductions with one count per rank. */
static void setup_plain(call_t* c, rng_t* sh, rng_t* mine, char** s, char** r) {
  long u = draw_units(sh, c->g);
  const layout_t *sL = c->sL, *rL = c->rL;
  int p = c->p, me = c->me, root = c->root;
  size_t sseg = u * unit_bytes(sL), rseg = u * unit_bytes(rL);
  long n = u * c->g;
  c->scount = inst(sL, u);
  c->rcount = inst(rL, u);
  c->stype = sL->type;
  c->rtype = rL->type;
  switch (c->coll) {
    case BCAST: /* one buffer, s: the root's data, the others' pattern */
      c->sbytes = sseg;
      *s = xmalloc(sseg + GUARD);
      memset(*s, me == root ? SEND_FILL : RECV_FILL, sseg + GUARD);
      if (me == root) fill_segment(*s, sL, n, mine);
      return;
    case GATHER:
    case ALLGATHER: {
      int receives = c->coll == ALLGATHER || me == root;
      int inplace = c->in_place && receives;
      c->s_in_place = inplace;
      c->sbytes = inplace ? 0 : sseg;
      c->rbytes = receives ? p * rseg : 0;
      *s = inplace ? NULL : xmalloc(sseg + GUARD);
      *r = receives ? xmalloc(p * rseg + GUARD) : NULL;
      if (*s) memset(*s, SEND_FILL, sseg + GUARD);
      if (*r) memset(*r, RECV_FILL, p * rseg + GUARD);
      if (inplace)
        fill_segment(*r + me * rseg, rL, n, mine); /* its own block, in place */
      else
        fill_segment(*s, sL, n, mine);
      return;
    }
    case SCATTER: {
      int inplace = c->in_place && me == root;
      c->r_in_place = inplace;
      c->sbytes = me == root ? p * sseg : 0;
      c->rbytes = inplace ? 0 : rseg;
      *s = me == root ? xmalloc(p * sseg + GUARD) : NULL;
      *r = inplace ? NULL : xmalloc(rseg + GUARD);
      if (*s) {
        memset(*s, SEND_FILL, p * sseg + GUARD);
        for (int i = 0; i < p; ++i) fill_segment(*s + i * sseg, sL, n, mine);
      }
      if (*r) memset(*r, RECV_FILL, rseg + GUARD);
      return;
    }
    case ALLTOALL: {
      c->s_in_place = c->in_place;
      c->sbytes = c->in_place ? 0 : p * sseg;
      c->rbytes = p * rseg;
      *s = c->in_place ? NULL : xmalloc(p * sseg + GUARD);
      *r = xmalloc(p * rseg + GUARD);
      memset(*r, RECV_FILL, p * rseg + GUARD);
      if (*s) memset(*s, SEND_FILL, p * sseg + GUARD);
      for (int i = 0; i < p; ++i) {
        if (c->in_place)
          fill_segment(*r + i * rseg, rL, n, mine);
        else
          fill_segment(*s + i * sseg, sL, n, mine);
      }
      return;
    }
  }
}

/* The v-collectives: counts of every rank (and for alltoallv the whole
 * matrix) and the root's displacements from the shared stream. */
static void setup_v(call_t* c, rng_t* sh, rng_t* mine, char** s, char** r) {
  int p = c->p, me = c->me, root = c->root, g = c->g;
  const layout_t *sL = c->sL, *rL = c->rL;
  size_t sub = unit_bytes(sL), rub = unit_bytes(rL);
  long units[MAXP], slot[MAXP];
  c->stype = sL->type;
  c->rtype = rL->type;
  if (c->coll == ALLTOALLV) {
    /* units[i][j]: from i to j; symmetric when in place (MPI requires the
     * amounts each pair exchanges to match then). */
    static long m[MAXP][MAXP];
    for (int i = 0; i < p; ++i)
      for (int j = 0; j < p; ++j) m[i][j] = draw_units(sh, g) % 40;
    if (c->in_place)
      for (int i = 0; i < p; ++i)
        for (int j = 0; j < i; ++j) m[i][j] = m[j][i];
    long sunits[MAXP], runits[MAXP], sslot[MAXP], rslot[MAXP];
    for (int j = 0; j < p; ++j) {
      sunits[j] = m[me][j];
      runits[j] = m[j][me];
    }
    /* Displacements are this rank's own business: its own stream. */
    long sspan = place(mine, p, sunits, sslot), rspan = place(mine, p, runits, rslot);
    for (int j = 0; j < p; ++j) {
      c->scounts[j] = inst(sL, sunits[j]);
      c->sdispls[j] = inst(sL, sslot[j]);
      c->rcounts[j] = inst(rL, runits[j]);
      c->rdispls[j] = inst(rL, rslot[j]);
    }
    c->s_in_place = c->in_place;
    c->sbytes = c->in_place ? 0 : sspan * sub;
    c->rbytes = rspan * rub;
    *s = c->in_place ? NULL : xmalloc(c->sbytes + GUARD);
    *r = xmalloc(c->rbytes + GUARD);
    memset(*r, RECV_FILL, c->rbytes + GUARD);
    if (*s) memset(*s, SEND_FILL, c->sbytes + GUARD);
    for (int j = 0; j < p; ++j) {
      if (c->in_place)
        fill_segment(*r + rslot[j] * rub, rL, runits[j] * g, mine);
      else
        fill_segment(*s + sslot[j] * sub, sL, sunits[j] * g, mine);
    }
    return;
  }
  for (int i = 0; i < p; ++i) units[i] = draw_units(sh, g);
  long span = place(sh, p, units, slot);
  long n = units[me] * g;
  if (c->coll == SCATTERV) {
    int inplace = c->in_place && me == root;
    for (int i = 0; i < p; ++i) {
      c->scounts[i] = inst(sL, units[i]);
      c->sdispls[i] = inst(sL, slot[i]);
    }
    c->rcount = inst(rL, units[me]);
    c->r_in_place = inplace;
    c->sbytes = me == root ? span * sub : 0;
    c->rbytes = inplace ? 0 : units[me] * rub;
    *s = me == root ? xmalloc(c->sbytes + GUARD) : NULL;
    *r = inplace ? NULL : xmalloc(c->rbytes + GUARD);
    if (*r) memset(*r, RECV_FILL, c->rbytes + GUARD);
    if (*s) {
      memset(*s, SEND_FILL, c->sbytes + GUARD);
      for (int i = 0; i < p; ++i) fill_segment(*s + slot[i] * sub, sL, units[i] * g, mine);
    }
    return;
  }
  /* gatherv, allgatherv */
  int receives = c->coll == ALLGATHERV || me == root;
  int inplace = c->in_place && receives;
  for (int i = 0; i < p; ++i) {
    c->rcounts[i] = inst(rL, units[i]);
    c->rdispls[i] = inst(rL, slot[i]);
  }
  c->scount = inst(sL, units[me]);
  c->s_in_place = inplace;
  c->sbytes = inplace ? 0 : units[me] * sub;
  c->rbytes = receives ? span * rub : 0;
  *s = inplace ? NULL : xmalloc(c->sbytes + GUARD);
  *r = receives ? xmalloc(c->rbytes + GUARD) : NULL;
  if (*s) memset(*s, SEND_FILL, c->sbytes + GUARD);
  if (*r) memset(*r, RECV_FILL, c->rbytes + GUARD);
  if (inplace)
    fill_segment(*r + slot[me] * rub, rL, n, mine);
  else
    fill_segment(*s, sL, n, mine);
}

/* The reductions, on predefined types (and MPI_2INT for MAXLOC). */
static void setup_reduction(call_t* c, rng_t* sh, char** s, char** r) {
  int p = c->p, me = c->me;
  size_t es = c->maxloc ? 8 : base_sizes[c->base];
  long n = draw_units(sh, 1), total = n;
  long rcounts[MAXP];
  c->rtype = c->stype = c->maxloc ? MPI_2INT : base_types[c->base];
  c->rcount = (int)n;
  long result = n, first = 0; /* this rank's result: elements, and where in the input */
  if (c->coll == RSB) {
    total = n * p;
    first = n * me;
  } else if (c->coll == RS) {
    total = 0;
    for (int i = 0; i < p; ++i) {
      rcounts[i] = draw_units(sh, 1) % 50;
      c->rcounts[i] = (int)rcounts[i];
      if (i < me) first += rcounts[i];
      total += rcounts[i];
    }
    result = rcounts[me];
  }
  int receives = c->coll != REDUCE || me == c->root;
  int inplace = c->in_place && receives;
  c->s_in_place = inplace;
  c->sbytes = inplace ? 0 : total * es;
  /* In place, the input is in r (all of it); the result is its start. */
  c->rbytes = !receives ? 0 : inplace ? total * es : result * es;
  c->r_from = 0;
  c->r_len = receives ? result * es : 0;
  c->r_rest_undefined = inplace;                 /* what follows the result in place */
  c->r_undefined = c->coll == EXSCAN && me == 0; /* MPI leaves it undefined */
  c->red_elems = total;
  c->red_first = first;
  *s = inplace ? NULL : xmalloc(c->sbytes + GUARD);
  *r = receives ? xmalloc(c->rbytes + GUARD) : NULL;
  if (*s) memset(*s, SEND_FILL, c->sbytes + GUARD);
  if (*r) memset(*r, RECV_FILL, c->rbytes + GUARD);
  reduction_input(c, me, total, inplace ? *r : *s);
}

/* Draws the call's operator and base type (reductions). */
static void draw_reduction(call_t* c, rng_t* sh) {
  uint64_t x = below(sh, 100);
  c->maxloc = 0;
  if (x < 4) { /* the runtime passes these to the library */
    c->op = OP_MAXLOC;
    c->maxloc = 1;
    c->base = T_INT;
  } else if (x < 10) {
    c->op = x < 7 ? OP_BAND : OP_BOR;
    do c->base = (int)below(sh, NREDUCIBLE);
    while (c->base == T_FLOAT || c->base == T_DOUBLE);
  } else {
    c->op = (int)below(sh, 4);
    c->base = (int)below(sh, NREDUCIBLE);
  }
}

static int is_reduction(int coll) {
  return coll == REDUCE || coll == ALLREDUCE || coll == RSB || coll == RS || coll == SCAN ||
         coll == EXSCAN;
}

/* ---- comparing -------------------------------------------------------- */

static long differing_calls[4096];
static long ndiffering = 0, diffs_overflow = 0;
static int printed = 0;
#define MAX_PRINTED 10
static int world_rank;

static void type_name(const call_t* c, char* buf, size_t n) {
  if (is_reduction(c->coll)) {
    snprintf(buf, n, "%s %s", c->maxloc ? "MPI_2INT" : base_names[c->base], op_names[c->op]);
    return;
  }
  char a[64], b[64];
  const layout_t* L[2] = {c->sL, c->rL};
  char* out[2] = {a, b};
  for (int i = 0; i < 2; ++i) {
    if (L[i]->kind == L_PRED)
      snprintf(out[i], 64, "%s", base_names[c->base]);
    else
      snprintf(out[i], 64, "%s(%d,%s)", layout_names[L[i]->kind], c->g, base_names[c->base]);
  }
  snprintf(buf, n, "send %s recv %s", a, b);
}

/* The count this rank passed for its own data (for alltoallv, what it
 * sends to rank 0). */
static int own_count(const call_t* c) {
  switch (c->coll) {
    case BCAST:
    case GATHER:
    case ALLGATHER:
    case ALLTOALL:
    case GATHERV:
    case ALLGATHERV: return c->scount;
    case ALLTOALLV: return c->in_place ? c->rcounts[0] : c->scounts[0];
    case RS: return c->rcounts[c->me];
    default: return c->rcount;
  }
}

/* Records a mismatch of this call (once per call) and prints the first. */
static int report(const call_t* c, const char* what, size_t byte, const char* ours,
                  const char* lib) {
  if (printed < MAX_PRINTED) {
    char tn[160];
    type_name(c, tn, sizeof tn);
    printf(
        "differential_check: DIFF call %ld %s comm %s (%d ranks) type %s count %d root %d "
        "in_place %d rank %d: %s byte %zu ours %s lib %s\n",
        c->index, coll_names[c->coll], comm_names[c->slot], c->p, tn, own_count(c), c->root,
        c->in_place, world_rank, what, byte, ours, lib);
    fflush(stdout);
    ++printed;
  }
  return 1;
}

/* Exact comparison of n bytes; 1 when they differ (reported). */
static int compare_bytes(const call_t* c, const char* what, const char* a, const char* b,
                         size_t from, size_t n) {
  for (size_t i = from; i < from + n; ++i)
    if (a[i] != b[i]) {
      char x[8], y[8];
      snprintf(x, sizeof x, "0x%02x", (unsigned char)a[i]);
      snprintf(y, sizeof y, "0x%02x", (unsigned char)b[i]);
      return report(c, what, i, x, y);
    }
  return 0;
}

/* The floating-point result of a SUM or PROD within the tolerance (see the
 * top of the file); needs every contributing rank's inputs, regenerated. */
static int compare_float(const call_t* c, const char* a, const char* b) {
  int dbl = c->base == T_DOUBLE, es = dbl ? 8 : 4;
  double eps = dbl ? DBL_EPSILON : FLT_EPSILON, tiny = dbl ? DBL_MIN : FLT_MIN;
  long n = (long)(c->r_len / es);
  int lo = 0, hi = c->p; /* contributing ranks [lo, hi) */
  if (c->coll == SCAN) hi = c->me + 1;
  if (c->coll == EXSCAN) hi = c->me;
  int k = hi - lo;
  double* sumabs = calloc(n ? n : 1, sizeof(double));
  char* in = xmalloc(c->red_elems * es);
  if (c->op == OP_SUM)
    for (int j = lo; j < hi; ++j) {
      reduction_input(c, j, c->red_elems, in);
      for (long e = 0; e < n; ++e) {
        double x;
        if (dbl)
          memcpy(&x, in + (c->red_first + e) * 8, 8);
        else {
          float f;
          memcpy(&f, in + (c->red_first + e) * 4, 4);
          x = f;
        }
        sumabs[e] += fabs(x);
      }
    }
  int bad = 0;
  for (long e = 0; e < n && !bad; ++e) {
    double x, y;
    if (dbl) {
      memcpy(&x, a + e * 8, 8);
      memcpy(&y, b + e * 8, 8);
    } else {
      float f, h;
      memcpy(&f, a + e * 4, 4);
      memcpy(&h, b + e * 4, 4);
      x = f;
      y = h;
    }
    double scale = c->op == OP_SUM ? sumabs[e] : fabs(y);
    double tol = 1.01 * (k - 1) * eps * scale + tiny;
    if (!(fabs(x - y) <= tol)) { /* also catches NaN */
      char xs[40], ys[40];
      snprintf(xs, sizeof xs, "%.17g", x);
      snprintf(ys, sizeof ys, "%.17g", y);
      bad = report(c, "result beyond tolerance at", (size_t)(e * es), xs, ys);
    }
  }
  free(sumabs);
  free(in);
  return bad;
}

/* Compares the two copies: r (result with the tolerance where it applies,
 * the rest and the guard exactly), s exactly. 1 when they differ. */
static int compare(const call_t* c, const char* s0, const char* s1, const char* r0,
                   const char* r1) {
  if (s0 && compare_bytes(c, "send buffer", s0, s1, 0, c->sbytes + GUARD)) return 1;
  if (!r0 || c->r_undefined) return 0;
  int fp = is_reduction(c->coll) && !c->maxloc && (c->base == T_FLOAT || c->base == T_DOUBLE) &&
           (c->op == OP_SUM || c->op == OP_PROD);
  size_t result = is_reduction(c->coll) ? c->r_len : c->rbytes;
  if (fp ? compare_float(c, r0, r1) : compare_bytes(c, "receive buffer", r0, r1, 0, result))
    return 1;
  if (!c->r_rest_undefined &&
      compare_bytes(c, "receive buffer after the result", r0, r1, result, c->rbytes - result))
    return 1;
  return compare_bytes(c, "guard after the receive buffer", r0, r1, c->rbytes, GUARD);
}

/* MPI_Allreduce on floating point: every rank the same bits. */
static int check_identical(const call_t* c, const char* r0) {
  char* root_copy = xmalloc(c->r_len);
  memcpy(root_copy, r0, c->r_len);
  PMPI_Bcast(root_copy, (int)c->r_len, MPI_BYTE, 0, c->comm);
  int bad = compare_bytes(c, "allreduce result unlike rank 0's", r0, root_copy, 0, c->r_len);
  free(root_copy);
  return bad;
}

/* ---- one call --------------------------------------------------------- */

static char* clone(const char* p, size_t n) {
  if (!p) return NULL;
  char* q = xmalloc(n);
  memcpy(q, p, n);
  return q;
}

/* Draws call `index` and, when this rank is in its communicator, runs it
 * on both sides and compares; returns the collective drawn. */
static long repeat = 1; /* --repeat */

static int one_call(long call) {
  const long index = call - call % repeat; /* the group's first call draws */
  rng_t sh = shared_rng(index);
  rng_t each = shared_rng(-1 - call); /* this call's own draws */
  call_t c;
  memset(&c, 0, sizeof c);
  c.index = index;
  int total = 0;
  for (int i = 0; i < NCOLL; ++i) total += coll_weights[i];
  int x = (int)below(&sh, total);
  while (x >= coll_weights[c.coll]) x -= coll_weights[c.coll++];
  c.slot = (int)below(&sh, NCOMM);
  c.comm = pool[c.slot];
  if (c.comm == MPI_COMM_NULL) return c.coll; /* not a member: skip */
  MPI_Comm_size(c.comm, &c.p);
  MPI_Comm_rank(c.comm, &c.me);
  c.root = (int)below(&sh, c.p);
  c.in_place = below(&sh, 3) == 0;
  if (repeat > 1) c.in_place = below(&each, 3) == 0;
  rng_t mine = rank_rng(index, c.me, 0);
  char *s = NULL, *r = NULL;
  if (is_reduction(c.coll)) {
    draw_reduction(&c, &sh);
    setup_reduction(&c, &sh, &s, &r);
  } else if (c.coll != BARRIER) {
    c.base = (int)below(&sh, NBASE);
    c.g = 1 + (int)below(&sh, MAXG);
    /* Half the calls: every rank the same layout; else each its own (and
     * its send and receive sides apart), the two sides of one rank either
     * both the predefined type or both derived: Open MPI 4.1.4's
     * allgatherv chooses its algorithm from the send type's size times
     * the receive counts, so ranks whose two sides count differently
     * choose different algorithms and hang (a library limitation). */
    if (below(&sh, 2)) {
      c.sL = c.rL = draw_layout(&sh, c.base, c.g);
    } else if (below(&mine, 2)) {
      c.sL = c.rL = &layouts[c.base][c.g][L_PRED];
    } else {
      c.sL = &layouts[c.base][c.g][1 + below(&mine, NLAYOUT - 1)];
      c.rL = &layouts[c.base][c.g][1 + below(&mine, NLAYOUT - 1)];
    }
    if (c.coll == ALLGATHERV || c.coll == GATHERV || c.coll == SCATTERV || c.coll == ALLTOALLV)
      setup_v(&c, &sh, &mine, &s, &r);
    else
      setup_plain(&c, &sh, &mine, &s, &r);
  }
  char* s1 = clone(s, c.sbytes + GUARD);
  char* r1 = clone(r, c.rbytes + GUARD);
  invoke(&c, s, r, 0);
  invoke(&c, s1, r1, 1);
  int bad = compare(&c, s, s1, r, r1);
  if (c.coll == ALLREDUCE && !c.maxloc && (c.base == T_FLOAT || c.base == T_DOUBLE))
    bad |= check_identical(&c, r);
  if (bad) {
    if (ndiffering < (long)(sizeof differing_calls / sizeof *differing_calls))
      differing_calls[ndiffering++] = index;
    else
      ++diffs_overflow;
  }
  free(s);
  free(s1);
  free(r);
  free(r1);
  return c.coll;
}

/* ---- main ------------------------------------------------------------- */

static int cmp_long(const void* a, const void* b) {
  long x = *(const long*)a, y = *(const long*)b;
  return (x > y) - (x < y);
}

/* Differing calls on all ranks, each call once (rank 0's count). */
static long count_differences(int size) {
  int n = (int)ndiffering, counts[MAXP * 4], displs[MAXP * 4];
  long overflow = 0;
  PMPI_Reduce(&diffs_overflow, &overflow, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  PMPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  long all_n = 0;
  if (world_rank == 0)
    for (int i = 0; i < size; ++i) {
      displs[i] = (int)all_n;
      all_n += counts[i];
    }
  long* all = malloc((all_n ? all_n : 1) * sizeof(long));
  PMPI_Gatherv(differing_calls, n, MPI_LONG, all, counts, displs, MPI_LONG, 0, MPI_COMM_WORLD);
  long d = 0;
  if (world_rank == 0) {
    qsort(all, all_n, sizeof(long), cmp_long);
    for (long i = 0; i < all_n; ++i) d += i == 0 || all[i] != all[i - 1];
    d += overflow;
  }
  free(all);
  PMPI_Bcast(&d, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  return d;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long calls = 100000;
  double seconds = 0;
  unsigned long long s = (unsigned long long)time(NULL) ^ ((unsigned long long)clock() << 20);
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--seed"))
      s = strtoull(argv[i + 1], NULL, 0);
    else if (!strcmp(argv[i], "--calls"))
      calls = strtol(argv[i + 1], NULL, 0);
    else if (!strcmp(argv[i], "--seconds"))
      seconds = strtod(argv[i + 1], NULL);
    else if (!strcmp(argv[i], "--repeat") && atol(argv[i + 1]) > 0)
      repeat = atol(argv[i + 1]);
    else {
      if (world_rank == 0)
        fprintf(stderr, "usage: %s [--seed S] [--calls N] [--seconds T] [--repeat R]\n", argv[0]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (size > MAXP) {
    if (world_rank == 0) fprintf(stderr, "differential_check: at most %d ranks\n", MAXP);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  /* Rank 0's seed for all (a time seed differs between processes). */
  PMPI_Bcast(&s, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  seed = s;
  if (world_rank == 0) {
    printf("differential_check: seed %llu\n", s);
    fflush(stdout);
  }
  MPI_Op ops[NOP] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_BAND, MPI_BOR, MPI_MAXLOC};
  memcpy(op_handles, ops, sizeof ops);
  make_types();
  make_pool(world_rank, size);

  long per_coll[NCOLL] = {0};
  double start = MPI_Wtime();
  long done = 0;
  while (done < calls) {
    ++per_coll[one_call(done)];
    ++done;
    if (done % 5000 == 0) churn_dup();
    /* The time bound: rank 0's clock decides, every rank stops at the
     * same call. */
    if (seconds > 0 && done % 256 == 0) {
      int stop = world_rank == 0 && MPI_Wtime() - start > seconds;
      PMPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
      if (stop) break;
    }
  }
  double elapsed = MPI_Wtime() - start;
  long d = count_differences(size);
  if (world_rank == 0) {
    printf("differential_check: %d ranks, seed %llu, %ld calls, %ld differences\n", size, s, done,
           d);
    printf("differential_check: calls per collective (%.1f s):", elapsed);
    for (int i = 0; i < NCOLL; ++i) printf(" %s %ld", coll_names[i], per_coll[i]);
    printf("\n");
    fflush(stdout);
  }
  free_pool();
  free_types();
  MPI_Finalize();
  return d > 0;
}
