/* An MPI program of our own for the interposer (libcct_mpi.so): ranks that
 * describe the same data with different datatypes of one type signature.
 * The interposer once hung such valid programs (the root gathering in place
 * with MPI_DOUBLE while the others sent one MPI_Type_vector of doubles: the
 * root took the call, the others left it to the MPI library, and the two
 * sides never met). Every rank must now take every datatype for MPI_Bcast,
 * MPI_Gather, MPI_Scatter, MPI_Allgather and MPI_Alltoall.
 *
 * Checked, on MPI_COMM_WORLD and on a split of it with the ranks in reverse
 * order, for every root and for 0, 1 and many elements:
 *  - gather, the root in place with MPI_DOUBLE, the others sending a vector,
 *    a contiguous, an indexed (also with blocks in decreasing displacement
 *    order: the type map order matters) and a struct type; and the root
 *    receiving into spaced-out or interleaved (resized) types from ranks
 *    that send MPI_DOUBLE;
 *  - scatter, the mirror images, the root also in place;
 *  - bcast of a C struct {4 ints, 8 doubles} (with gaps and padding)
 *    against the same signature as MPI_BYTE and as a packed derived type,
 *    and of doubles in pairs of different derived types;
 *  - allgather and alltoall, half of the ranks sending MPI_DOUBLE and
 *    receiving into a derived type, half the other way round, and in place.
 * Every buffer is checked whole against a reference computed here from
 * (rank, index, salt): the data where the datatype puts it, a sentinel in
 * every gap and in a guard after the end, the send buffers unchanged.
 * Exit status 0 when every check passed on every rank. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_PROGRAM "mixed_types_check"
#include "checks.h"

/* The value source `id` contributes at index k of call `salt` (exact). */
static double value(int id, int k, int salt) {
  return (id + 1) * 1048576.0 + k + salt * 0.125;
}

#define SENTINEL (-1.5) /* in every gap: no value() is negative */
#define GUARD 8         /* sentinel doubles after every buffer */
#define MANY 20000      /* about this many doubles for the large count */

/* ---- Layouts of doubles ------------------------------------------------ */

/* The datatypes of the test. A static kind repeats a unit of u doubles at
 * positions p (in type map order) every e doubles (its extent). */
enum kind {
  PLAIN,
  VEC,
  VEC_RAW,
  CONTIG,
  IDX,
  IDX_REV,
  STRUCT,
  SPACED,
  SUBARRAY,
  INTERLEAVE,
  NKINDS
};

static const struct {
  const char* name;
  int u, e;
  int p[6];
} unit[NKINDS] = {
    [PLAIN] = {"MPI_DOUBLE", 1, 1, {0}},
    [VEC] = {"vector(3,1,2) resized to 6", 3, 6, {0, 2, 4}},
    [VEC_RAW] = {"vector(2,2,3)", 4, 5, {0, 1, 3, 4}},
    [CONTIG] = {"contiguous(4)", 4, 4, {0, 1, 2, 3}},
    [IDX] = {"indexed({1,3,2},{0,2,7})", 6, 9, {0, 2, 3, 4, 7, 8}},
    [IDX_REV] = {"indexed({2,3},{4,0})", 5, 6, {4, 5, 0, 1, 2}},
    [STRUCT] = {"struct({2,1,1},{24,0,48})", 5, 8, {3, 4, 0, 6, 7}},
    [SPACED] = {"vector(2,1,2) resized to 5", 2, 5, {0, 2}},
    /* A column of a 2 x 3 array: a constructor the interposer does not
     * flatten, so MPI_Pack packs it. */
    [SUBARRAY] = {"subarray({2,3},{2,1},{0,1})", 2, 6, {1, 4}},
    /* Built per call for n doubles and p ranks: vector(n,1,p+1) resized to
     * 1 double, count 1 (0 for no data), so the blocks of the ranks interleave. */
    [INTERLEAVE] = {"interleaving vector", 1, 1, {0}},
};

static MPI_Datatype kind_type[NKINDS];

static void make_types(void) {
  MPI_Datatype t, pair;
  kind_type[PLAIN] = MPI_DOUBLE;
  MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &t);
  MPI_Type_create_resized(t, 0, 6 * sizeof(double), &kind_type[VEC]);
  MPI_Type_free(&t);
  MPI_Type_vector(2, 2, 3, MPI_DOUBLE, &kind_type[VEC_RAW]);
  MPI_Type_contiguous(4, MPI_DOUBLE, &kind_type[CONTIG]);
  MPI_Type_indexed(3, (int[]){1, 3, 2}, (int[]){0, 2, 7}, MPI_DOUBLE, &kind_type[IDX]);
  MPI_Type_indexed(2, (int[]){2, 3}, (int[]){4, 0}, MPI_DOUBLE, &kind_type[IDX_REV]);
  MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
  MPI_Type_create_struct(3, (int[]){2, 1, 1},
                         (MPI_Aint[]){3 * sizeof(double), 0, 6 * sizeof(double)},
                         (MPI_Datatype[]){MPI_DOUBLE, MPI_DOUBLE, pair}, &kind_type[STRUCT]);
  MPI_Type_free(&pair);
  MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &t);
  MPI_Type_create_resized(t, 0, 5 * sizeof(double), &kind_type[SPACED]);
  MPI_Type_free(&t);
  MPI_Type_create_subarray(2, (int[]){2, 3}, (int[]){2, 1}, (int[]){0, 1}, MPI_ORDER_C, MPI_DOUBLE,
                           &kind_type[SUBARRAY]);
  for (int k = VEC; k < INTERLEAVE; ++k) MPI_Type_commit(&kind_type[k]);
}

static void free_types(void) {
  for (int k = VEC; k < INTERLEAVE; ++k) MPI_Type_free(&kind_type[k]);
}

/* How one rank describes a block of n doubles: type and count for the
 * call, where the k-th double of the block lies, and how far apart the
 * blocks of consecutive ranks lie (count * extent). */
typedef struct {
  enum kind kind;
  MPI_Datatype type;
  int count, n;
  int block;  /* doubles from one block to the next */
  int span;   /* doubles one block reaches */
  int stride; /* INTERLEAVE: doubles between two elements of a block */
} Desc;

static Desc describe(enum kind kind, int n, int size) {
  Desc d = {.kind = kind, .n = n};
  if (kind == INTERLEAVE) {
    /* No data goes as count 0, not as one empty element: Open MPI 4.1
     * decides on the counts alone that a rank has nothing to do. */
    MPI_Datatype t;
    MPI_Type_vector(n ? n : 1, 1, size + 1, MPI_DOUBLE, &t);
    MPI_Type_create_resized(t, 0, sizeof(double), &d.type);
    MPI_Type_free(&t);
    MPI_Type_commit(&d.type);
    d.count = n ? 1 : 0;
    d.block = d.count;
    d.stride = size + 1;
    d.span = n ? (n - 1) * d.stride + 1 : 0;
    return d;
  }
  int last = 0;
  for (int k = 0; k < unit[kind].u; ++k)
    if (unit[kind].p[k] > last) last = unit[kind].p[k];
  d.type = kind_type[kind];
  d.count = n / unit[kind].u;
  d.block = d.count * unit[kind].e;
  d.span = d.count ? (d.count - 1) * unit[kind].e + last + 1 : 0;
  return d;
}

static void undescribe(Desc* d) {
  if (d->kind == INTERLEAVE) MPI_Type_free(&d->type);
}

/* Where double k of block b lies. */
static size_t at(const Desc* d, int b, int k) {
  size_t start = (size_t)b * d->block;
  if (d->kind == INTERLEAVE) return start + (size_t)k * d->stride;
  int u = unit[d->kind].u;
  return start + (size_t)(k / u) * unit[d->kind].e + unit[d->kind].p[k % u];
}

/* Doubles a buffer of `blocks` blocks needs. */
static int length(const Desc* d, int blocks) {
  int len = (blocks - 1) * d->block + d->span;
  return blocks > 0 && len > 0 ? len : 0;
}

/* A buffer of len doubles and its guard, all sentinel. */
static double* fresh(int len) {
  double* buf = malloc((size_t)(len + GUARD) * sizeof *buf);
  for (int i = 0; i < len + GUARD; ++i) buf[i] = SENTINEL;
  return buf;
}

/* Puts source id's values as block b. */
static void put(double* buf, const Desc* d, int b, int id, int salt) {
  for (int k = 0; k < d->n; ++k) buf[at(d, b, k)] = value(id, k, salt);
}

static int same(const double* got, const double* want, int len) {
  return memcmp(got, want, (size_t)(len + GUARD) * sizeof *got) == 0;
}

static double* copy_of(const double* buf, int len) {
  double* c = malloc((size_t)(len + GUARD) * sizeof *c);
  memcpy(c, buf, (size_t)(len + GUARD) * sizeof *c);
  return c;
}

static int gcd(int a, int b) {
  return b ? gcd(b, a % b) : a;
}

/* Doubles per block for count index c (0, 1 or many units of both kinds). */
static int doubles(int c, enum kind a, enum kind b) {
  int l = unit[a].u / gcd(unit[a].u, unit[b].u) * unit[b].u;
  return c == 0 ? 0 : c == 1 ? l : MANY / l * l;
}

/* ---- Gather and scatter ------------------------------------------------ */

/* The root gathers in place with MPI_DOUBLE; the others send a derived type
 * (the pattern that hung). */
static void test_gather_in_place_root(MPI_Comm comm, int rank, int size, int salt) {
  static const enum kind senders[] = {VEC, VEC_RAW, CONTIG, IDX, IDX_REV, STRUCT, SPACED, SUBARRAY};
  char what[200];
  for (size_t s = 0; s < sizeof senders / sizeof *senders; ++s)
    for (int root = 0; root < size; ++root)
      for (int c = 0; c < 3; ++c) {
        int n = doubles(c, PLAIN, senders[s]);
        Desc d = describe(rank == root ? PLAIN : senders[s], n, size);
        snprintf(what, sizeof what, "gather root %d in place, others send %d x %s (%d doubles)",
                 root, n / unit[senders[s]].u, unit[senders[s]].name, n);
        if (rank == root) {
          int len = length(&d, size);
          double *buf = fresh(len), *want = fresh(len);
          put(buf, &d, root, root, salt);
          MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, n, MPI_DOUBLE, root, comm);
          for (int r = 0; r < size; ++r) put(want, &d, r, r, salt);
          check(same(buf, want, len), what, rank);
          free(buf);
          free(want);
        } else {
          double* send = fresh(d.span);
          put(send, &d, 0, rank, salt);
          double* before = copy_of(send, d.span);
          MPI_Gather(send, d.count, d.type, NULL, n, MPI_DOUBLE, root, comm);
          check(same(send, before, d.span), what, rank);
          free(send);
          free(before);
        }
      }
}

/* The root receives into a non-contiguous type whose blocks space out or
 * interleave; everyone, the root too, sends MPI_DOUBLE. */
static void test_gather_derived_root(MPI_Comm comm, int rank, int size, int salt) {
  static const enum kind roots[] = {SPACED, VEC, IDX_REV, INTERLEAVE};
  char what[200];
  for (size_t s = 0; s < sizeof roots / sizeof *roots; ++s)
    for (int root = 0; root < size; ++root)
      for (int c = 0; c < 3; ++c) {
        int n = doubles(c, PLAIN, roots[s]);
        Desc send_d = describe(PLAIN, n, size);
        double* send = fresh(n);
        put(send, &send_d, 0, rank, salt);
        snprintf(what, sizeof what, "gather root %d receives into %s, all send %d MPI_DOUBLE", root,
                 unit[roots[s]].name, n);
        if (rank == root) {
          Desc d = describe(roots[s], n, size);
          int len = length(&d, size);
          double *buf = fresh(len), *want = fresh(len);
          MPI_Gather(send, n, MPI_DOUBLE, buf, d.count, d.type, root, comm);
          for (int r = 0; r < size; ++r) put(want, &d, r, r, salt);
          check(same(buf, want, len), what, rank);
          free(buf);
          free(want);
          undescribe(&d);
        } else {
          MPI_Gather(send, n, MPI_DOUBLE, NULL, 0, MPI_DATATYPE_NULL, root, comm);
          double* want = fresh(n);
          put(want, &send_d, 0, rank, salt);
          check(same(send, want, n), what, rank);
          free(want);
        }
        free(send);
      }
}

/* The root scatters MPI_DOUBLE, in place or into the derived type the
 * others receive into. */
static void test_scatter_derived_receivers(MPI_Comm comm, int rank, int size, int salt) {
  static const enum kind receivers[] = {VEC, CONTIG, IDX, IDX_REV, STRUCT, SUBARRAY};
  char what[200];
  for (size_t s = 0; s < sizeof receivers / sizeof *receivers; ++s)
    for (int in_place = 0; in_place < 2; ++in_place)
      for (int root = 0; root < size; ++root)
        for (int c = 0; c < 3; ++c) {
          int n = doubles(c, PLAIN, receivers[s]);
          Desc d = describe(receivers[s], n, size);
          snprintf(what, sizeof what, "scatter root %d %s, others receive %d x %s (%d doubles)",
                   root, in_place ? "in place" : "into the same", d.count, unit[receivers[s]].name,
                   n);
          double* send = NULL;
          if (rank == root) {
            Desc plain = describe(PLAIN, n, size);
            send = fresh(n * size);
            for (int r = 0; r < size; ++r) put(send, &plain, r, r, salt);
          }
          double *recv = fresh(d.span), *want = fresh(d.span);
          if (rank == root && in_place) {
            double* before = copy_of(send, n * size);
            MPI_Scatter(send, n, MPI_DOUBLE, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, root, comm);
            check(same(send, before, n * size), what, rank);
            free(before);
          } else {
            MPI_Scatter(send, n, MPI_DOUBLE, recv, d.count, d.type, root, comm);
            put(want, &d, 0, rank, salt);
          }
          check(same(recv, want, d.span), what, rank);
          free(send);
          free(recv);
          free(want);
        }
}

/* The root scatters from a strided derived type; the others receive
 * MPI_DOUBLE, the root too or in place. */
static void test_scatter_derived_root(MPI_Comm comm, int rank, int size, int salt) {
  static const enum kind roots[] = {SPACED, VEC, IDX_REV, INTERLEAVE};
  char what[200];
  for (size_t s = 0; s < sizeof roots / sizeof *roots; ++s)
    for (int in_place = 0; in_place < 2; ++in_place)
      for (int root = 0; root < size; ++root)
        for (int c = 0; c < 3; ++c) {
          int n = doubles(c, PLAIN, roots[s]);
          Desc plain = describe(PLAIN, n, size);
          snprintf(what, sizeof what,
                   "scatter root %d sends from %s%s, others receive %d MPI_DOUBLE", root,
                   unit[roots[s]].name, in_place ? " in place" : "", n);
          double *recv = fresh(n), *want = fresh(n);
          if (rank == root) {
            Desc d = describe(roots[s], n, size);
            int len = length(&d, size);
            double* send = fresh(len);
            for (int r = 0; r < size; ++r) put(send, &d, r, r, salt);
            double* before = copy_of(send, len);
            MPI_Scatter(send, d.count, d.type, in_place ? MPI_IN_PLACE : recv, n, MPI_DOUBLE, root,
                        comm);
            if (!in_place) put(want, &plain, 0, rank, salt);
            check(same(send, before, len), what, rank);
            free(send);
            free(before);
            undescribe(&d);
          } else {
            MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, recv, n, MPI_DOUBLE, root, comm);
            put(want, &plain, 0, rank, salt);
          }
          check(same(recv, want, n), what, rank);
          free(recv);
          free(want);
        }
}

/* ---- Bcast ------------------------------------------------------------- */

/* A record with a gap and a tail that no datatype of the test covers. */
struct rec {
  int k[4];
  int gap;
  double d[8];
  char tail[8];
};
#define PACKED_REC (4 * sizeof(int) + 8 * sizeof(double)) /* its signature in bytes */

static int ivalue(int root, int e, int j, int salt) {
  return (root + 1) * 1000000 + e * 4 + j + salt;
}

/* Record e of root's data, in a struct rec (all else 0xA5 bytes). */
static void put_rec(struct rec* r, int root, int e, int salt) {
  for (int j = 0; j < 4; ++j) r->k[j] = ivalue(root, e, j, salt);
  for (int j = 0; j < 8; ++j) r->d[j] = value(root, e * 8 + j, salt);
}

/* Record e of root's data, packed: 4 ints then 8 doubles. */
static void put_packed(unsigned char* p, int root, int e, int salt) {
  struct rec r;
  put_rec(&r, root, e, salt);
  memcpy(p + e * PACKED_REC, r.k, sizeof r.k);
  memcpy(p + e * PACKED_REC + sizeof r.k, r.d, sizeof r.d);
}

/* Three descriptions of `count` records {4 ints, 8 doubles}: struct recs
 * (the struct type resized to sizeof(struct rec), or unresized for one
 * record), MPI_BYTE over packed records, and a packed derived type (4
 * contiguous ints then 8 contiguous doubles) over packed records. Each rank
 * takes one in turn, every root too. */
static void test_bcast_struct(MPI_Comm comm, int rank, int size, int salt) {
  MPI_Datatype rec_type, rec_resized, ints, dbls, packed;
  MPI_Type_create_struct(2, (int[]){4, 8},
                         (MPI_Aint[]){offsetof(struct rec, k), offsetof(struct rec, d)},
                         (MPI_Datatype[]){MPI_INT, MPI_DOUBLE}, &rec_type);
  MPI_Type_create_resized(rec_type, 0, sizeof(struct rec), &rec_resized);
  MPI_Type_contiguous(4, MPI_INT, &ints);
  MPI_Type_contiguous(8, MPI_DOUBLE, &dbls);
  MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 4 * sizeof(int)},
                         (MPI_Datatype[]){ints, dbls}, &packed);
  MPI_Type_commit(&rec_type);
  MPI_Type_commit(&rec_resized);
  MPI_Type_commit(&packed);
  static const char* role_name[] = {"struct rec type", "MPI_BYTE", "packed derived type"};
  char what[200];
  for (int turn = 0; turn < 3; ++turn)
    for (int root = 0; root < size; ++root)
      for (int c = 0; c < 3; ++c) {
        int count = c == 0 ? 0 : c == 1 ? 1 : MANY / 10;
        int role = (rank + turn) % 3;
        snprintf(what, sizeof what, "bcast root %d of %d records, this rank as %s", root, count,
                 role_name[role]);
        size_t bytes = role == 0 ? count * sizeof(struct rec) : count * PACKED_REC;
        unsigned char* buf = malloc(bytes + 64);
        unsigned char* want = malloc(bytes + 64);
        memset(buf, 0xA5, bytes + 64);
        memset(want, 0xA5, bytes + 64);
        for (int e = 0; e < count; ++e) {
          if (role == 0)
            put_rec((struct rec*)want + e, root, e, salt);
          else
            put_packed(want, root, e, salt);
        }
        if (rank == root) memcpy(buf, want, bytes);
        if (role == 0)
          MPI_Bcast(buf, count, count == 1 ? rec_type : rec_resized, root, comm);
        else if (role == 1)
          MPI_Bcast(buf, (int)(count * PACKED_REC), MPI_BYTE, root, comm);
        else
          MPI_Bcast(buf, count, packed, root, comm);
        check(memcmp(buf, want, bytes + 64) == 0, what, rank);
        free(buf);
        free(want);
      }
  MPI_Type_free(&packed);
  MPI_Type_free(&dbls);
  MPI_Type_free(&ints);
  MPI_Type_free(&rec_resized);
  MPI_Type_free(&rec_type);
}

/* Doubles in pairs of descriptions: half of the ranks take one, half the
 * other, every root on both sides. */
static void test_bcast_mixed(MPI_Comm comm, int rank, int size, int salt) {
  static const enum kind pairs[][2] = {{PLAIN, VEC},      {PLAIN, IDX_REV}, {PLAIN, SPACED},
                                       {VEC_RAW, STRUCT}, {CONTIG, IDX},    {SUBARRAY, IDX_REV}};
  char what[200];
  for (size_t s = 0; s < sizeof pairs / sizeof *pairs; ++s)
    for (int turn = 0; turn < 2; ++turn)
      for (int root = 0; root < size; ++root)
        for (int c = 0; c < 3; ++c) {
          int n = doubles(c, pairs[s][0], pairs[s][1]);
          Desc d = describe(pairs[s][(rank + turn) % 2], n, size);
          snprintf(what, sizeof what,
                   "bcast root %d of %d doubles, %s against %s, this rank %d x %s", root, n,
                   unit[pairs[s][0]].name, unit[pairs[s][1]].name, d.count, unit[d.kind].name);
          double *buf = fresh(d.span), *want = fresh(d.span);
          put(want, &d, 0, root, salt);
          if (rank == root) put(buf, &d, 0, root, salt);
          MPI_Bcast(buf, d.count, d.type, root, comm);
          check(same(buf, want, d.span), what, rank);
          free(buf);
          free(want);
        }
}

/* ---- Allgather and alltoall -------------------------------------------- */

/* Pairs {sent, received}: one half of the ranks sends MPI_DOUBLE and
 * receives into `received`, the other sends `sent` and receives MPI_DOUBLE. */
static const enum kind all_pairs[][2] = {
    {VEC, SPACED}, {IDX_REV, INTERLEAVE}, {STRUCT, VEC}, {CONTIG, IDX}, {SUBARRAY, SUBARRAY}};
#define NPAIRS (sizeof all_pairs / sizeof *all_pairs)

static void test_allgather_mixed(MPI_Comm comm, int rank, int size, int salt) {
  char what[200];
  for (size_t s = 0; s < NPAIRS; ++s)
    for (int turn = 0; turn < 2; ++turn)
      for (int in_place = 0; in_place < 2; ++in_place)
        for (int c = 0; c < 3; ++c) {
          int n = doubles(c, all_pairs[s][0], all_pairs[s][1]);
          int half = (rank + turn) % 2;
          Desc sd = describe(half ? all_pairs[s][0] : PLAIN, n, size);
          Desc rd = describe(half ? PLAIN : all_pairs[s][1], n, size);
          snprintf(what, sizeof what, "allgather%s of %d doubles, this rank %s -> %s",
                   in_place ? " in place" : "", n, in_place ? "-" : unit[sd.kind].name,
                   unit[rd.kind].name);
          int len = length(&rd, size);
          double *recv = fresh(len), *want = fresh(len), *send = fresh(sd.span);
          for (int r = 0; r < size; ++r) put(want, &rd, r, r, salt);
          put(send, &sd, 0, rank, salt);
          double* before = copy_of(send, sd.span);
          if (in_place) {
            put(recv, &rd, rank, rank, salt);
            MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, rd.count, rd.type, comm);
          } else {
            MPI_Allgather(send, sd.count, sd.type, recv, rd.count, rd.type, comm);
          }
          check(same(recv, want, len) && same(send, before, sd.span), what, rank);
          free(recv);
          free(want);
          free(send);
          free(before);
          undescribe(&sd);
          undescribe(&rd);
        }
}

/* Block from rank f to rank t holds source f * size + t's values. */
static void test_alltoall_mixed(MPI_Comm comm, int rank, int size, int salt) {
  char what[200];
  for (size_t s = 0; s < NPAIRS; ++s)
    for (int turn = 0; turn < 2; ++turn)
      for (int in_place = 0; in_place < 2; ++in_place)
        for (int c = 0; c < 3; ++c) {
          int n = doubles(c, all_pairs[s][0], all_pairs[s][1]);
          int half = (rank + turn) % 2;
          Desc sd = describe(half ? all_pairs[s][0] : PLAIN, n, size);
          Desc rd = describe(half ? PLAIN : all_pairs[s][1], n, size);
          snprintf(what, sizeof what, "alltoall%s of %d doubles a block, this rank %s -> %s",
                   in_place ? " in place" : "", n, in_place ? "-" : unit[sd.kind].name,
                   unit[rd.kind].name);
          int slen = length(&sd, size), rlen = length(&rd, size);
          double *recv = fresh(rlen), *want = fresh(rlen), *send = fresh(slen);
          for (int f = 0; f < size; ++f) put(want, &rd, f, f * size + rank, salt);
          for (int t = 0; t < size; ++t) put(send, &sd, t, rank * size + t, salt);
          double* before = copy_of(send, slen);
          if (in_place) {
            for (int t = 0; t < size; ++t) put(recv, &rd, t, rank * size + t, salt);
            MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, rd.count, rd.type, comm);
          } else {
            MPI_Alltoall(send, sd.count, sd.type, recv, rd.count, rd.type, comm);
          }
          check(same(recv, want, rlen) && same(send, before, slen), what, rank);
          free(recv);
          free(want);
          free(send);
          free(before);
          undescribe(&sd);
          undescribe(&rd);
        }
}

static void test_everything(MPI_Comm comm, int salt) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  test_gather_in_place_root(comm, rank, size, salt);
  test_gather_derived_root(comm, rank, size, salt);
  test_scatter_derived_receivers(comm, rank, size, salt);
  test_scatter_derived_root(comm, rank, size, salt);
  test_bcast_struct(comm, rank, size, salt);
  test_bcast_mixed(comm, rank, size, salt);
  test_allgather_mixed(comm, rank, size, salt);
  test_alltoall_mixed(comm, rank, size, salt);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  make_types();

  test_everything(MPI_COMM_WORLD, 1);
  MPI_Comm reversed;
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &reversed);
  test_everything(reversed, 2);
  MPI_Comm_free(&reversed);
  // A communicator like MPI_COMM_WORLD but its own (a library's duplicate).
  MPI_Comm twin;
  MPI_Comm_dup(MPI_COMM_WORLD, &twin);
  test_everything(twin, 3);
  MPI_Comm_free(&twin);

  free_types();
  int mine[2] = {checks, failures}, all[2] = {0, 0};
  MPI_Reduce(mine, all, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("mixed_types_check: %d ranks, %d checks, %d failures on all ranks\n", size, all[0],
           all[1]);
  MPI_Finalize();
  return failures == 0 && all[1] == 0 ? 0 : 1;
}
