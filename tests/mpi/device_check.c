/* An MPI program of our own for the interposer (libcct_mpi.so) on buffers
 * in device memory: every collective it takes, each call made twice, once
 * on host buffers and once with some ranks' buffers in device memory, and
 * the two results compared byte for byte, the receive buffers whole (gaps
 * between blocks and past the end included) and the send buffers
 * unchanged.
 *
 * The device memory is the tests' host_device transport's (its library,
 * the first argument, is loaded for cct_test_device_alloc, _free and
 * _copy): host memory whose addresses fault when the host touches them, as
 * a GPU's do. Under the MPI library alone (Debian's Open MPI is not
 * CUDA-aware) such a call faults; under the interposer it must give every
 * rank the result host buffers give.
 *
 * Where the buffers are varies by rank and by call: on the device on every
 * rank, the send side on the device on even ranks and the receive side on
 * odd ones, on rank 0 only, on the last rank only. Each call in two
 * variants: on MPI_INT (reductions: MPI_SUM), which the runtime takes as
 * it is; and on pairs of ints with a gap between and after them (a resized
 * vector), which it packs, or for the reductions MPI_BXOR on MPI_INT, which
 * it leaves to the library. Counts 1, 7 and 300 (per rank and
 * block; the v-collectives vary them by rank, with gaps between blocks),
 * every collective's in-place form, roots 0 and the last rank.
 * Exit status 0 when every check passed on every rank. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_PROGRAM "device_check"
#include "checks.h"

/* The host_device library's functions for the program's device memory. */
static void* (*device_alloc)(size_t);
static void (*device_free)(void*);
static int (*device_copy)(void*, const void*, size_t, int);
enum { HOST_TO_DEVICE = 0, DEVICE_TO_HOST = 1 }; /* cct_copy_kind */

enum collective {
  BCAST,
  GATHER,
  SCATTER,
  ALLGATHER,
  ALLTOALL,
  REDUCE,
  ALLREDUCE,
  REDUCE_SCATTER_BLOCK,
  REDUCE_SCATTER,
  ALLGATHERV,
  SCAN,
  EXSCAN,
  GATHERV,
  SCATTERV,
  ALLTOALLV,
  COLLECTIVES
};
static const char* const names[COLLECTIVES] = {
    "bcast",          "gather",     "scatter",   "allgather",
    "alltoall",       "reduce",     "allreduce", "reduce_scatter_block",
    "reduce_scatter", "allgatherv", "scan",      "exscan",
    "gatherv",        "scatterv",   "alltoallv"};

/* Ints per element of each datatype (its extent), for the buffers' size. */
#define WIDEST 3
#define MAX_RANKS 64

static int rank_, size_;

/* counts and displacements of the v-collectives: block i of count + i
 * elements (reduce_scatter's recvcounts too), two elements apart;
 * alltoallv's count + i + j between ranks i and j, the same both ways. */
static int counts[MAX_RANKS], displs[MAX_RANKS], pair_counts[MAX_RANKS], pair_displs[MAX_RANKS];

static void set_counts(int count) {
  for (int i = 0; i < size_; ++i) {
    counts[i] = count + i;
    displs[i] = i == 0 ? 1 : displs[i - 1] + counts[i - 1] + 2;
    pair_counts[i] = count + i + rank_;
    pair_displs[i] = i == 0 ? 2 : pair_displs[i - 1] + pair_counts[i - 1] + 2;
  }
}

/* Elements a buffer holds: more than any collective reaches. */
static size_t elements(int count) {
  return (size_t)size_ * (size_t)(count + 2 * size_ + 4);
}

/* The call, with in_place the collective's in-place form (where this rank
 * has one: the root's, or every rank's). */
static void call(int c, void* s, void* r, int count, MPI_Datatype t, MPI_Op op, int root,
                 int in_place) {
  const int at_root = rank_ == root;
  const void* in = in_place ? MPI_IN_PLACE : s;
  const void* in_at_root = in_place && at_root ? MPI_IN_PLACE : s;
  switch (c) {
    case BCAST: MPI_Bcast(r, count, t, root, MPI_COMM_WORLD); break;
    case GATHER: MPI_Gather(in_at_root, count, t, r, count, t, root, MPI_COMM_WORLD); break;
    case SCATTER:
      MPI_Scatter(s, count, t, in_place && at_root ? MPI_IN_PLACE : r, count, t, root,
                  MPI_COMM_WORLD);
      break;
    case ALLGATHER: MPI_Allgather(in, count, t, r, count, t, MPI_COMM_WORLD); break;
    case ALLTOALL: MPI_Alltoall(in, count, t, r, count, t, MPI_COMM_WORLD); break;
    case REDUCE: MPI_Reduce(in_at_root, r, count, t, op, root, MPI_COMM_WORLD); break;
    case ALLREDUCE: MPI_Allreduce(in, r, count, t, op, MPI_COMM_WORLD); break;
    case REDUCE_SCATTER_BLOCK: MPI_Reduce_scatter_block(in, r, count, t, op, MPI_COMM_WORLD); break;
    case REDUCE_SCATTER: MPI_Reduce_scatter(in, r, counts, t, op, MPI_COMM_WORLD); break;
    case ALLGATHERV:
      MPI_Allgatherv(in, counts[rank_], t, r, counts, displs, t, MPI_COMM_WORLD);
      break;
    case SCAN: MPI_Scan(in, r, count, t, op, MPI_COMM_WORLD); break;
    case EXSCAN: MPI_Exscan(in, r, count, t, op, MPI_COMM_WORLD); break;
    case GATHERV:
      MPI_Gatherv(in_at_root, counts[rank_], t, r, counts, displs, t, root, MPI_COMM_WORLD);
      break;
    case SCATTERV:
      MPI_Scatterv(s, counts, displs, t, in_place && at_root ? MPI_IN_PLACE : r, counts[rank_], t,
                   root, MPI_COMM_WORLD);
      break;
    case ALLTOALLV:
      MPI_Alltoallv(in, pair_counts, pair_displs, t, r, pair_counts, pair_displs, t,
                    MPI_COMM_WORLD);
      break;
  }
}

static int reduction(int c) {
  return c == REDUCE || c == ALLREDUCE || c == REDUCE_SCATTER_BLOCK || c == REDUCE_SCATTER ||
         c == SCAN || c == EXSCAN;
}

/* Whether the call has an in-place form on some rank. */
static int has_in_place(int c) {
  return c != BCAST;
}

/* Where this rank's buffers are in placement p (varied by rank). */
static int send_on_device(int p) {
  return p == 0 || (p == 1 && rank_ % 2 == 0) || (p == 2 && rank_ == 0) ||
         (p == 3 && rank_ == size_ - 1);
}
static int recv_on_device(int p) {
  return p == 0 || (p == 1 && rank_ % 2 == 1) || (p == 2 && rank_ == 0) ||
         (p == 3 && rank_ == size_ - 1);
}

/* What this rank's buffers hold before a call: distinct everywhere, the
 * receive side too (the in-place forms read it). */
static void fill(int* send, int* recv, size_t n, int salt) {
  for (size_t k = 0; k < n; ++k) {
    send[k] = rank_ * 100003 + (int)k * 7 + salt;
    recv[k] = -(rank_ * 1009 + (int)k + 1);
  }
}

/* n ints on the device holding `from`, or NULL where allocation failed. */
static void* on_device(const int* from, size_t n) {
  void* d = device_alloc(n * sizeof(int));
  if (d != NULL && device_copy(d, from, n * sizeof(int), HOST_TO_DEVICE) != 0) {
    device_free(d);
    return NULL;
  }
  return d;
}

/* One case: the call on host buffers, then with this placement, compared. */
static void one_case(int c, MPI_Datatype t, MPI_Op op, const char* type_name, int count, int root,
                     int in_place, int placement, int salt) {
  const size_t n = elements(count) * WIDEST;
  int* want_send = malloc(n * sizeof(int));
  int* want_recv = malloc(n * sizeof(int));
  int* got_send = malloc(n * sizeof(int));
  int* got_recv = malloc(n * sizeof(int));
  int* start_send = malloc(n * sizeof(int));
  set_counts(count);
  fill(want_send, want_recv, n, salt);
  memcpy(start_send, want_send, n * sizeof(int));
  call(c, want_send, want_recv, count, t, op, root, in_place);

  fill(got_send, got_recv, n, salt);
  void* dev_send = send_on_device(placement) ? on_device(got_send, n) : NULL;
  void* dev_recv = recv_on_device(placement) ? on_device(got_recv, n) : NULL;
  char what[160];
  snprintf(what, sizeof what, "%s of %d x %s, root %d%s, placement %d: ", names[c], count,
           type_name, root, in_place ? ", in place" : "", placement);
  const size_t prefix = strlen(what);
  snprintf(what + prefix, sizeof what - prefix, "device memory allocated");
  check((dev_send != NULL) == send_on_device(placement) &&
            (dev_recv != NULL) == recv_on_device(placement),
        what, rank_);
  call(c, dev_send ? dev_send : got_send, dev_recv ? dev_recv : got_recv, count, t, op, root,
       in_place);
  if (dev_send) device_copy(got_send, dev_send, n * sizeof(int), DEVICE_TO_HOST);
  if (dev_recv) device_copy(got_recv, dev_recv, n * sizeof(int), DEVICE_TO_HOST);
  snprintf(what + prefix, sizeof what - prefix, "receive buffer as with host buffers");
  check(memcmp(got_recv, want_recv, n * sizeof(int)) == 0, what, rank_);
  snprintf(what + prefix, sizeof what - prefix, "send buffer unchanged");
  check(memcmp(got_send, start_send, n * sizeof(int)) == 0, what, rank_);
  if (dev_send) device_free(dev_send);
  if (dev_recv) device_free(dev_recv);
  free(want_send);
  free(want_recv);
  free(got_send);
  free(got_recv);
  free(start_send);
}

static void load_device(const char* library) {
  void* handle = dlopen(library, RTLD_NOW);
  if (handle == NULL) {
    fprintf(stderr, CHECK_PROGRAM ": cannot load %s: %s\n", library, dlerror());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  *(void**)&device_alloc = dlsym(handle, "cct_test_device_alloc");
  *(void**)&device_free = dlsym(handle, "cct_test_device_free");
  *(void**)&device_copy = dlsym(handle, "cct_test_device_copy");
  if (!device_alloc || !device_free || !device_copy) {
    fprintf(stderr, CHECK_PROGRAM ": %s lacks the cct_test_device_* functions\n", library);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  if (argc < 2 || size_ > MAX_RANKS) {
    if (rank_ == 0)
      fprintf(stderr, "usage: device_check <libcct_test_host_device.so>, <= 64 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  load_device(argv[1]);
  /* Two ints with a gap after each: element k's ints at 3k and 3k + 2. */
  MPI_Datatype gapped, pair;
  MPI_Type_vector(2, 1, 2, MPI_INT, &pair);
  MPI_Type_create_resized(pair, 0, WIDEST * (MPI_Aint)sizeof(int), &gapped);
  MPI_Type_commit(&gapped);
  const int counts_tried[] = {1, 7, 300};
  int salt = 0;
  for (int c = 0; c < COLLECTIVES; ++c)
    for (int ti = 0; ti < 2; ++ti)
      for (int ci = 0; ci < 3; ++ci)
        for (int in_place = 0; in_place <= has_in_place(c); ++in_place)
          for (int placement = 0; placement < 4; ++placement) {
            const int root = (salt % 2) * (size_ - 1);
            if (ti == 0)
              one_case(c, MPI_INT, MPI_SUM, "MPI_INT", counts_tried[ci], root, in_place, placement,
                       ++salt);
            else if (reduction(c))
              one_case(c, MPI_INT, MPI_BXOR, "MPI_INT (MPI_BXOR)", counts_tried[ci], root, in_place,
                       placement, ++salt);
            else
              one_case(c, gapped, MPI_SUM, "gapped pairs", counts_tried[ci], root, in_place,
                       placement, ++salt);
          }
  MPI_Type_free(&gapped);
  MPI_Type_free(&pair);
  int all_failures = 0;
  MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank_ == 0)
    printf(CHECK_PROGRAM ": %d ranks, %d checks, %d failures on all ranks\n", size_, checks,
           all_failures);
  MPI_Finalize();
  return all_failures == 0 ? 0 : 1;
}
