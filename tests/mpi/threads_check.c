/* threads_check: collectives from several threads of each rank at once,
 * under MPI_THREAD_MULTIPLE, as hybrid MPI+threads programs and mpi4py make
 * them (tests/scripts/mpi_threads.sh runs it under the interposer).
 *
 * Each of T threads owns communicators of its own (MPI forbids concurrent
 * collectives on one communicator, not on different ones) and, in every
 * round, makes a fresh one from its own, runs the collectives on it and
 * frees it. So the runtimes of different communicators are made, used and
 * destroyed at the same time by different threads, and MPI reuses freed
 * handles while other threads look theirs up: the interposer's shared
 * state (the runtimes' registry, the last communicator looked up, the
 * datatype descriptions, the counters, the scratch buffers) is exercised
 * under concurrency. Every result is checked against a reference computed
 * locally.
 *
 * usage: threads_check [threads (default 3)] [rounds (default 20)]
 * Prints "threads_check: <np> ranks x <T> threads, <C> checks, <F>
 * failures on all ranks" from rank 0; exits 1 on any failure. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_PROGRAM "threads_check"

static int rounds = 20;
static pthread_mutex_t tally_lock = PTHREAD_MUTEX_INITIALIZER;
static long all_checks = 0, all_failures = 0;

struct thread_state {
  int index;
  MPI_Comm own; /* this thread's communicator, made before the threads */
  long checks, failures;
};

static void check(struct thread_state* t, int ok, const char* what, int rank, int round) {
  ++t->checks;
  if (!ok) {
    ++t->failures;
    fprintf(stderr, CHECK_PROGRAM ": rank %d thread %d round %d: FAILED: %s\n", rank, t->index,
            round, what);
  }
}

/* A value every rank can compute for any rank: results are checked
 * without communication. */
static int value(int thread, int round, int rank, int i) {
  return (thread + 1) * 1000 + round * 10 + rank * 3 + i % 7;
}

/* allreduce (sum, a count that changes per round), in place on half. */
static void allreduce_round(struct thread_state* t, MPI_Comm comm, int rank, int size, int round) {
  const int count = 1 + (round * 37 + t->index * 11) % 300;
  int* in = malloc(sizeof(int) * count);
  int* out = malloc(sizeof(int) * count);
  for (int i = 0; i < count; ++i) out[i] = in[i] = value(t->index, round, rank, i);
  if (round % 2)
    MPI_Allreduce(MPI_IN_PLACE, out, count, MPI_INT, MPI_SUM, comm);
  else
    MPI_Allreduce(in, out, count, MPI_INT, MPI_SUM, comm);
  int ok = 1;
  for (int i = 0; i < count; ++i) {
    int want = 0;
    for (int r = 0; r < size; ++r) want += value(t->index, round, r, i);
    ok = ok && out[i] == want;
  }
  check(t, ok, "allreduce", rank, round);
  free(in);
  free(out);
}

/* bcast of doubles through a strided vector type: packed, in the thread's
 * own scratch. */
static void bcast_round(struct thread_state* t, MPI_Comm comm, int rank, int size, int round) {
  enum { kBlocks = 64 };
  double data[2 * kBlocks];
  const int root = (round + t->index) % size;
  for (int i = 0; i < 2 * kBlocks; ++i)
    data[i] = rank == root ? value(t->index, round, root, i) : -1.0;
  MPI_Datatype every_other;
  MPI_Type_vector(kBlocks, 1, 2, MPI_DOUBLE, &every_other);
  MPI_Type_commit(&every_other);
  MPI_Bcast(data, 1, every_other, root, comm);
  MPI_Type_free(&every_other);
  int ok = 1;
  for (int i = 0; i < 2 * kBlocks; ++i) {
    const double want = i % 2 == 0 || rank == root ? value(t->index, round, root, i) : -1.0;
    ok = ok && data[i] == want;
  }
  check(t, ok, "bcast of a vector type", rank, round);
}

/* alltoall: block j of rank r goes to rank j. */
static void alltoall_round(struct thread_state* t, MPI_Comm comm, int rank, int size, int round) {
  enum { kBlock = 5 };
  int* send = malloc(sizeof(int) * kBlock * size);
  int* recv = malloc(sizeof(int) * kBlock * size);
  for (int j = 0; j < size; ++j)
    for (int i = 0; i < kBlock; ++i)
      send[j * kBlock + i] = value(t->index, round, rank, j * 10 + i);
  MPI_Alltoall(send, kBlock, MPI_INT, recv, kBlock, MPI_INT, comm);
  int ok = 1;
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < kBlock; ++i)
      ok = ok && recv[r * kBlock + i] == value(t->index, round, r, rank * 10 + i);
  check(t, ok, "alltoall", rank, round);
  free(send);
  free(recv);
}

/* allgatherv: rank r contributes r + 1 + round % 3 numbers. */
static void allgatherv_round(struct thread_state* t, MPI_Comm comm, int rank, int size, int round) {
  int* counts = malloc(sizeof(int) * size);
  int* displs = malloc(sizeof(int) * size);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    counts[r] = r + 1 + round % 3;
    displs[r] = total;
    total += counts[r];
  }
  long long* mine = malloc(sizeof(long long) * counts[rank]);
  long long* all = malloc(sizeof(long long) * total);
  for (int i = 0; i < counts[rank]; ++i) mine[i] = value(t->index, round, rank, i);
  MPI_Allgatherv(mine, counts[rank], MPI_LONG_LONG, all, counts, displs, MPI_LONG_LONG, comm);
  int ok = 1;
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < counts[r]; ++i)
      ok = ok && all[displs[r] + i] == value(t->index, round, r, i);
  check(t, ok, "allgatherv", rank, round);
  free(counts);
  free(displs);
  free(mine);
  free(all);
}

/* scan (max) and reduce_scatter_block (sum) of the same numbers. */
static void scan_round(struct thread_state* t, MPI_Comm comm, int rank, int size, int round) {
  enum { kCount = 3 };
  int in[kCount], out[kCount];
  for (int i = 0; i < kCount; ++i) in[i] = value(t->index, round, rank, i) * (rank % 2 ? -1 : 1);
  MPI_Scan(in, out, kCount, MPI_INT, MPI_MAX, comm);
  int ok = 1;
  for (int i = 0; i < kCount; ++i) {
    int want = value(t->index, round, 0, i);
    for (int r = 1; r <= rank; ++r) {
      const int v = value(t->index, round, r, i) * (r % 2 ? -1 : 1);
      want = v > want ? v : want;
    }
    ok = ok && out[i] == want;
  }
  check(t, ok, "scan", rank, round);
  int* blocks = malloc(sizeof(int) * kCount * size);
  for (int i = 0; i < kCount * size; ++i) blocks[i] = value(t->index, round, rank, i);
  MPI_Reduce_scatter_block(MPI_IN_PLACE, blocks, kCount, MPI_INT, MPI_SUM, comm);
  ok = 1;
  for (int i = 0; i < kCount; ++i) {
    int want = 0;
    for (int r = 0; r < size; ++r) want += value(t->index, round, r, rank * kCount + i);
    ok = ok && blocks[i] == want;
  }
  check(t, ok, "reduce_scatter_block", rank, round);
  free(blocks);
}

static void* run_thread(void* arg) {
  struct thread_state* t = arg;
  int rank, size;
  MPI_Comm_rank(t->own, &rank);
  MPI_Comm_size(t->own, &size);
  for (int round = 0; round < rounds; ++round) {
    /* A communicator of this round only: its runtime is made on the first
     * call below and destroyed by MPI_Comm_free, while the other threads
     * do the same with theirs. Odd rounds reverse the ranks' order. */
    MPI_Comm comm;
    MPI_Comm_split(t->own, 0, round % 2 ? size - rank : rank, &comm);
    int crank;
    MPI_Comm_rank(comm, &crank);
    allreduce_round(t, comm, crank, size, round);
    bcast_round(t, comm, crank, size, round);
    alltoall_round(t, comm, crank, size, round);
    allgatherv_round(t, comm, crank, size, round);
    scan_round(t, comm, crank, size, round);
    MPI_Comm_free(&comm);
    /* And the thread's own communicator, which lives on: looked up again
     * after other communicators were freed. */
    allreduce_round(t, t->own, rank, size, round);
  }
  pthread_mutex_lock(&tally_lock);
  all_checks += t->checks;
  all_failures += t->failures;
  pthread_mutex_unlock(&tally_lock);
  return NULL;
}

int main(int argc, char** argv) {
  const int threads = argc > 1 ? atoi(argv[1]) : 3;
  if (argc > 2) rounds = atoi(argv[2]);
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (provided != MPI_THREAD_MULTIPLE) {
    if (rank == 0) fprintf(stderr, CHECK_PROGRAM ": the MPI library gave no THREAD_MULTIPLE\n");
    MPI_Finalize();
    return 77;
  }
  if (threads < 1 || threads > 64 || rounds < 1) {
    if (rank == 0) fprintf(stderr, "usage: threads_check [threads 1-64] [rounds >= 1]\n");
    MPI_Finalize();
    return 2;
  }
  struct thread_state* states = calloc(threads, sizeof *states);
  pthread_t* ids = calloc(threads, sizeof *ids);
  for (int i = 0; i < threads; ++i) {
    states[i].index = i;
    MPI_Comm_dup(MPI_COMM_WORLD, &states[i].own); /* in order, on the main thread */
  }
  for (int i = 0; i < threads; ++i) pthread_create(&ids[i], NULL, run_thread, &states[i]);
  for (int i = 0; i < threads; ++i) pthread_join(ids[i], NULL);
  for (int i = 0; i < threads; ++i) MPI_Comm_free(&states[i].own);
  long totals[2] = {all_checks, all_failures}, sums[2];
  MPI_Allreduce(totals, sums, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf(CHECK_PROGRAM ": %d ranks x %d threads, %ld checks, %ld failures on all ranks\n", size,
           threads, sums[0], sums[1]);
  free(states);
  free(ids);
  MPI_Finalize();
  return sums[1] == 0 ? 0 : 1;
}
