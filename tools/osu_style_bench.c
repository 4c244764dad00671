/*
 * A plain MPI benchmark of the 8 blocking collectives, written the way the
 * OSU micro-benchmarks time them, to check the tuned runtime from outside:
 * it knows nothing of ccautotune (it links only MPI), so the same binary
 * runs on the MPI library alone or with the interposer preloaded
 * (tools/interposer_runs.py alternates the two and prints ratios).
 *
 * As OSU does: one buffer pair allocated for the largest size; per size,
 * warm-up calls, then timed calls with a barrier after each, so that every
 * call starts with the ranks together and no call overlaps the next; the
 * latency of a size is the average time of one call on each rank, and the
 * line shows the average, minimum and maximum of that over the ranks.
 * Sizes are bytes per rank: the buffer of bcast, the block each rank sends
 * for gather, scatter, allgather and alltoall, the vector (MPI_FLOAT,
 * MPI_SUM) of reduce and allreduce; rooted calls use root 0.
 *
 * usage: mpirun -np N osu_style_bench [max_bytes]   (default 1 MiB)
 * output: collective bytes avg_us min_us max_us iterations
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kWarmupSmall = 200, kItersSmall = 1000, kWarmupLarge = 10, kItersLarge = 100 };
static const size_t kLargeFrom = 8192; /* OSU's switch to fewer iterations */

typedef struct {
  char *send, *recv;
  int rank, size;
} Buffers;

typedef void (*Call)(const Buffers* b, size_t bytes);

static void barrier(const Buffers* b, size_t bytes) {
  (void)b;
  (void)bytes;
  MPI_Barrier(MPI_COMM_WORLD);
}
static void bcast(const Buffers* b, size_t bytes) {
  MPI_Bcast(b->send, (int)bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
}
static void gather(const Buffers* b, size_t bytes) {
  MPI_Gather(b->send, (int)bytes, MPI_CHAR, b->recv, (int)bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
}
static void scatter(const Buffers* b, size_t bytes) {
  MPI_Scatter(b->send, (int)bytes, MPI_CHAR, b->recv, (int)bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
}
static void reduce(const Buffers* b, size_t bytes) {
  MPI_Reduce(b->send, b->recv, (int)(bytes / sizeof(float)), MPI_FLOAT, MPI_SUM, 0,
             MPI_COMM_WORLD);
}
static void allreduce(const Buffers* b, size_t bytes) {
  MPI_Allreduce(b->send, b->recv, (int)(bytes / sizeof(float)), MPI_FLOAT, MPI_SUM,
                MPI_COMM_WORLD);
}
static void allgather(const Buffers* b, size_t bytes) {
  MPI_Allgather(b->send, (int)bytes, MPI_CHAR, b->recv, (int)bytes, MPI_CHAR, MPI_COMM_WORLD);
}
static void alltoall(const Buffers* b, size_t bytes) {
  MPI_Alltoall(b->send, (int)bytes, MPI_CHAR, b->recv, (int)bytes, MPI_CHAR, MPI_COMM_WORLD);
}

typedef struct {
  const char* name;
  Call call;
  size_t min_bytes; /* reductions start at one float */
  int sized;        /* 0: the barrier, timed once with 0 bytes */
} Collective;

static const Collective kCollectives[] = {
    {"barrier", barrier, 0, 0},     {"bcast", bcast, 1, 1},         {"gather", gather, 1, 1},
    {"scatter", scatter, 1, 1},     {"reduce", reduce, 4, 1},       {"allreduce", allreduce, 4, 1},
    {"allgather", allgather, 1, 1}, {"alltoall", alltoall, 1, 1},
};

/* The average time of one call on this rank, in microseconds. */
static double time_calls(const Buffers* b, Call call, size_t bytes) {
  const int large = bytes >= kLargeFrom;
  const int warmup = large ? kWarmupLarge : kWarmupSmall;
  const int iters = large ? kItersLarge : kItersSmall;
  double total = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < warmup + iters; ++i) {
    const double start = MPI_Wtime();
    call(b, bytes);
    const double stop = MPI_Wtime();
    if (i >= warmup) total += stop - start;
    MPI_Barrier(MPI_COMM_WORLD);
  }
  return 1e6 * total / iters;
}

static void report(const Buffers* b, const Collective* c, size_t bytes) {
  const double mine = time_calls(b, c->call, bytes);
  double sum = 0, min = 0, max = 0;
  MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&mine, &min, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&mine, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (b->rank == 0) {
    const int iters = bytes >= kLargeFrom ? kItersLarge : kItersSmall;
    printf("%-10s %8zu %10.2f %10.2f %10.2f %6d\n", c->name, bytes, sum / b->size, min, max,
           iters);
    fflush(stdout);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Buffers b;
  MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &b.size);
  char* end = NULL;
  const long long max_arg = argc > 1 ? strtoll(argv[1], &end, 10) : 1 << 20;
  if (argc > 2 || (argc > 1 && (*end != '\0' || max_arg < 1 || max_arg > (1 << 28)))) {
    if (b.rank == 0) fprintf(stderr, "usage: osu_style_bench [max_bytes, 1 to 2^28]\n");
    MPI_Finalize();
    return 2;
  }
  const size_t max_bytes = (size_t)max_arg;
  /* alltoall, gather and allgather need size blocks of the largest size */
  const size_t room = max_bytes * (size_t)b.size;
  b.send = malloc(room);
  b.recv = malloc(room);
  if (b.send == NULL || b.recv == NULL) {
    fprintf(stderr, "osu_style_bench: rank %d: cannot allocate 2 x %zu bytes\n", b.rank, room);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(b.send, 1, room);
  memset(b.recv, 0, room);
  if (b.rank == 0) printf("# collective bytes avg_us min_us max_us iterations (%d ranks)\n", b.size);
  for (size_t i = 0; i < sizeof kCollectives / sizeof kCollectives[0]; ++i) {
    const Collective* c = &kCollectives[i];
    if (!c->sized) {
      report(&b, c, 0);
      continue;
    }
    for (size_t bytes = c->min_bytes; bytes <= max_bytes; bytes *= 2) report(&b, c, bytes);
  }
  free(b.send);
  free(b.recv);
  MPI_Finalize();
  return 0;
}
