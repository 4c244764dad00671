/*
 * A plain MPI benchmark of the 16 blocking collectives, written the way the
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
 * Before each point, a probe the interposer does not take: the one-way
 * latency of an 8-byte MPI_Send/MPI_Recv ping-pong between ranks 0 and 1.
 * On some machines the latency between cores moves between levels for
 * seconds at a time, and every collective with it (on the project's 2-core
 * VM 0.14-0.21 us or 0.37-0.49 us, collectives up to 2x), so comparing two
 * runs' figures of a point means little without the level each was timed
 * at (tools/interposer_runs.py and the tuner's outside check compare
 * within a level: tuner/latency_levels.hpp).
 * Sizes are bytes per rank: the buffer of bcast, the block each rank sends
 * for gather, scatter, allgather, alltoall and their vector forms (equal
 * counts, as OSU's v-benchmarks pass them), the vector (MPI_FLOAT,
 * MPI_SUM) of reduce, allreduce, scan and exscan, each rank's block of the
 * result of reduce_scatter_block and reduce_scatter; rooted calls use root
 * 0.
 *
 * usage: mpirun -np N osu_style_bench [max_bytes]   (default 1 MiB)
 * output: collective bytes avg_us min_us max_us iterations probe_us
 *         (probe_us 0 on one rank; times to the nanosecond, where OSU
 *         prints two decimals: a small call takes 0.15-0.2 us here, and a
 *         10 ns step would read as 5-7%)
 *
 * Or, to count what crosses a network (tools/cluster_bytes.py): CALLS calls
 * of one collective at one size, nothing else, no timing, no output.
 * usage: mpirun -np N osu_style_bench loop COLLECTIVE BYTES CALLS
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kWarmupSmall = 200, kItersSmall = 1000, kWarmupLarge = 10, kItersLarge = 100 };
enum { kProbeBlocks = 5, kProbeTrips = 20 }; /* 120 round trips: 40-120 us here */
static const size_t kLargeFrom = 8192;       /* OSU's switch to fewer iterations */

typedef struct {
  char *send, *recv;
  int *counts, *displs; /* the vector forms' arrays, set per call */
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
  MPI_Reduce(b->send, b->recv, (int)(bytes / sizeof(float)), MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
}
static void allreduce(const Buffers* b, size_t bytes) {
  MPI_Allreduce(b->send, b->recv, (int)(bytes / sizeof(float)), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}
static void allgather(const Buffers* b, size_t bytes) {
  MPI_Allgather(b->send, (int)bytes, MPI_CHAR, b->recv, (int)bytes, MPI_CHAR, MPI_COMM_WORLD);
}
static void alltoall(const Buffers* b, size_t bytes) {
  MPI_Alltoall(b->send, (int)bytes, MPI_CHAR, b->recv, (int)bytes, MPI_CHAR, MPI_COMM_WORLD);
}
/* Every rank's count `n`, at consecutive displacements. */
static void equal_blocks(const Buffers* b, int n) {
  for (int r = 0; r < b->size; ++r) b->counts[r] = n, b->displs[r] = r * n;
}
static int floats(size_t bytes) {
  return (int)(bytes / sizeof(float));
}
static void reduce_scatter_block(const Buffers* b, size_t bytes) {
  MPI_Reduce_scatter_block(b->send, b->recv, floats(bytes), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}
static void reduce_scatter(const Buffers* b, size_t bytes) {
  equal_blocks(b, floats(bytes));
  MPI_Reduce_scatter(b->send, b->recv, b->counts, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}
static void allgatherv(const Buffers* b, size_t bytes) {
  equal_blocks(b, (int)bytes);
  MPI_Allgatherv(b->send, (int)bytes, MPI_CHAR, b->recv, b->counts, b->displs, MPI_CHAR,
                 MPI_COMM_WORLD);
}
static void scan(const Buffers* b, size_t bytes) {
  MPI_Scan(b->send, b->recv, floats(bytes), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}
static void exscan(const Buffers* b, size_t bytes) {
  MPI_Exscan(b->send, b->recv, floats(bytes), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}
static void gatherv(const Buffers* b, size_t bytes) {
  equal_blocks(b, (int)bytes);
  MPI_Gatherv(b->send, (int)bytes, MPI_CHAR, b->recv, b->counts, b->displs, MPI_CHAR, 0,
              MPI_COMM_WORLD);
}
static void scatterv(const Buffers* b, size_t bytes) {
  equal_blocks(b, (int)bytes);
  MPI_Scatterv(b->send, b->counts, b->displs, MPI_CHAR, b->recv, (int)bytes, MPI_CHAR, 0,
               MPI_COMM_WORLD);
}
static void alltoallv(const Buffers* b, size_t bytes) {
  equal_blocks(b, (int)bytes);
  MPI_Alltoallv(b->send, b->counts, b->displs, MPI_CHAR, b->recv, b->counts, b->displs, MPI_CHAR,
                MPI_COMM_WORLD);
}

typedef struct {
  const char* name;
  Call call;
  size_t min_bytes; /* reductions start at one float */
  int sized;        /* 0: the barrier, timed once with 0 bytes */
} Collective;

static const Collective kCollectives[] = {
    {"barrier", barrier, 0, 0},
    {"bcast", bcast, 1, 1},
    {"gather", gather, 1, 1},
    {"scatter", scatter, 1, 1},
    {"reduce", reduce, 4, 1},
    {"allreduce", allreduce, 4, 1},
    {"allgather", allgather, 1, 1},
    {"alltoall", alltoall, 1, 1},
    {"reduce_scatter_block", reduce_scatter_block, 4, 1},
    {"reduce_scatter", reduce_scatter, 4, 1},
    {"allgatherv", allgatherv, 1, 1},
    {"scan", scan, 4, 1},
    {"exscan", exscan, 4, 1},
    {"gatherv", gatherv, 1, 1},
    {"scatterv", scatterv, 1, 1},
    {"alltoallv", alltoallv, 1, 1},
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

/* The probe's one-way latency in microseconds on rank 0, 0 elsewhere and
 * on one rank; the other ranks wait in the barrier after it. The median of
 * kProbeBlocks blocks of round trips, so that one preemption (spikes of up
 * to 14 us here) does not make a point look timed at another level. */
static double probe(const Buffers* b) {
  char byte[8] = {0};
  double blocks[kProbeBlocks];
  MPI_Barrier(MPI_COMM_WORLD);
  if (b->size < 2 || b->rank > 1) return 0;
  const int peer = 1 - b->rank;
  for (int block = -1; block < kProbeBlocks; ++block) { /* block -1: warm-up */
    const double start = MPI_Wtime();
    for (int i = 0; i < kProbeTrips; ++i) {
      if (b->rank == 0) {
        MPI_Send(byte, sizeof byte, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
        MPI_Recv(byte, sizeof byte, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(byte, sizeof byte, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(byte, sizeof byte, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
      }
    }
    if (block >= 0) blocks[block] = 1e6 * (MPI_Wtime() - start) / (2.0 * kProbeTrips);
  }
  for (int i = 1; i < kProbeBlocks; ++i) /* insertion sort of 5 */
    for (int j = i; j > 0 && blocks[j] < blocks[j - 1]; --j) {
      const double t = blocks[j];
      blocks[j] = blocks[j - 1];
      blocks[j - 1] = t;
    }
  return b->rank == 0 ? blocks[kProbeBlocks / 2] : 0;
}

static void report(const Buffers* b, const Collective* c, size_t bytes) {
  const double probe_us = probe(b);
  const double mine = time_calls(b, c->call, bytes);
  double sum = 0, min = 0, max = 0;
  MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&mine, &min, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&mine, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (b->rank == 0) {
    const int iters = bytes >= kLargeFrom ? kItersLarge : kItersSmall;
    printf("%-20s %8zu %10.3f %10.3f %10.3f %6d %8.3f\n", c->name, bytes, sum / b->size, min, max,
           iters, probe_us);
    fflush(stdout);
  }
}

/* Buffers for calls of up to max_bytes per rank (gather, allgather and
 * alltoall need size blocks of that). */
static Buffers make_buffers(size_t max_bytes) {
  Buffers b;
  MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &b.size);
  const size_t room = max_bytes * (size_t)b.size;
  b.send = malloc(room > 0 ? room : 1);
  b.recv = malloc(room > 0 ? room : 1);
  b.counts = malloc((size_t)b.size * sizeof(int));
  b.displs = malloc((size_t)b.size * sizeof(int));
  if (b.send == NULL || b.recv == NULL || b.counts == NULL || b.displs == NULL) {
    fprintf(stderr, "osu_style_bench: rank %d: cannot allocate 2 x %zu bytes\n", b.rank, room);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(b.send, 1, room);
  memset(b.recv, 0, room);
  return b;
}

static void free_buffers(Buffers* b) {
  free(b->send);
  free(b->recv);
  free(b->counts);
  free(b->displs);
}

static const Collective* find_collective(const char* name) {
  for (size_t i = 0; i < sizeof kCollectives / sizeof kCollectives[0]; ++i)
    if (strcmp(kCollectives[i].name, name) == 0) return &kCollectives[i];
  return NULL;
}

/* A number from 0 to limit, or -1. */
static long long parse_count(const char* text, long long limit) {
  char* end = NULL;
  const long long value = strtoll(text, &end, 10);
  return end != text && *end == '\0' && value >= 0 && value <= limit ? value : -1;
}

/* The usage, said once. */
static int usage(const char* text) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) fprintf(stderr, "usage: osu_style_bench %s\n", text);
  return 2;
}

static int loop(int argc, char** argv) {
  const Collective* c = argc == 5 ? find_collective(argv[2]) : NULL;
  const long long bytes = argc == 5 ? parse_count(argv[3], 1 << 28) : -1;
  const long long calls = argc == 5 ? parse_count(argv[4], 1 << 30) : -1;
  if (c == NULL || bytes < (long long)c->min_bytes || calls < 0)
    return usage(
        "loop COLLECTIVE BYTES CALLS (COLLECTIVE one of the 16, BYTES up to 2^28, "
        "at least 4 for reductions)");
  Buffers b = make_buffers((size_t)bytes);
  for (long long i = 0; i < calls; ++i) c->call(&b, (size_t)bytes);
  free_buffers(&b);
  return 0;
}

static int sweep(size_t max_bytes) {
  Buffers b = make_buffers(max_bytes);
  if (b.rank == 0)
    printf("# collective bytes avg_us min_us max_us iterations probe_us (%d ranks)\n", b.size);
  for (size_t i = 0; i < sizeof kCollectives / sizeof kCollectives[0]; ++i) {
    const Collective* c = &kCollectives[i];
    if (!c->sized) {
      report(&b, c, 0);
      continue;
    }
    for (size_t bytes = c->min_bytes; bytes <= max_bytes; bytes *= 2) report(&b, c, bytes);
  }
  free_buffers(&b);
  return 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
  if (argc > 1 && strcmp(argv[1], "loop") == 0) {
    status = loop(argc, argv);
  } else {
    const long long max_bytes = argc > 1 ? parse_count(argv[1], 1 << 28) : 1 << 20;
    status = argc > 2 || max_bytes < 1 ? usage("[max_bytes, 1 to 2^28]") : sweep((size_t)max_bytes);
  }
  MPI_Finalize();
  return status;
}
