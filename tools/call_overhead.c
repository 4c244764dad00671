/*
 * The cost of one small collective call, for the interposer's own share of
 * it: `collective` (allreduce, the default, of `count` MPI_INT; bcast,
 * allgather, allgatherv, alltoallv, gatherv, scatterv or reduce_scatter
 * (a sum) of `count` MPI_INT per block; barrier) on MPI_COMM_WORLD,
 * `calls` times back to back (default 2000000) after 1000 warm-up calls,
 * and the mean time per call.
 * It links only MPI, so the same binary runs on the MPI library alone or
 * with the interposer preloaded; at np 1 the difference is the
 * interposer's cost per call (with CCT_FORCE="<collective>:0-max:mpi" the
 * cost of a call it keeps on the library for every size; without, its
 * dispatch to the runtime).
 *
 * With "paired", the same process also makes the calls through the PMPI_
 * entry points, the library's own even under the preload, in blocks of
 * 1000 alternated with the MPI_ ones: the difference is the interposer's
 * cost without the spread between fresh processes, which at np 2 on the
 * project's 2-core VM is tens of ns between two runs of the library alone
 * (docs/benchmarks.md, "The cost of a kept call").
 *
 * usage: mpirun -np N call_overhead [calls] [count] [collective] [paired]
 * output: "<ns> ns/call", or with paired "<ns> ns/call, <ns> ns/call direct"
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_RANKS = 1024, kPairedBlock = 1000 };

static int counts[MAX_RANKS], displs[MAX_RANKS];

/* Through the MPI_ entry point (the interposer's, when preloaded) or,
 * `direct`, its PMPI_ twin, which is always the library's own. */
#define CALL(fn, ...) (direct ? P##fn(__VA_ARGS__) : fn(__VA_ARGS__))

/* One call of the collective named `name` (known: checked in main). */
static void call(const char* name, int direct, int* in, int* out, int count) {
  MPI_Comm w = MPI_COMM_WORLD;
  if (strcmp(name, "barrier") == 0) CALL(MPI_Barrier, w);
  if (strcmp(name, "allreduce") == 0) CALL(MPI_Allreduce, in, out, count, MPI_INT, MPI_SUM, w);
  if (strcmp(name, "bcast") == 0) CALL(MPI_Bcast, in, count, MPI_INT, 0, w);
  if (strcmp(name, "allgather") == 0)
    CALL(MPI_Allgather, in, count, MPI_INT, out, count, MPI_INT, w);
  if (strcmp(name, "allgatherv") == 0)
    CALL(MPI_Allgatherv, in, count, MPI_INT, out, counts, displs, MPI_INT, w);
  if (strcmp(name, "alltoallv") == 0)
    CALL(MPI_Alltoallv, in, counts, displs, MPI_INT, out, counts, displs, MPI_INT, w);
  if (strcmp(name, "gatherv") == 0)
    CALL(MPI_Gatherv, in, count, MPI_INT, out, counts, displs, MPI_INT, 0, w);
  if (strcmp(name, "scatterv") == 0)
    CALL(MPI_Scatterv, in, counts, displs, MPI_INT, out, count, MPI_INT, 0, w);
  if (strcmp(name, "reduce_scatter") == 0)
    CALL(MPI_Reduce_scatter, in, out, counts, MPI_INT, MPI_SUM, w);
}

/* Seconds of `calls` calls, through MPI_ or PMPI_. */
static double timed(long calls, const char* name, int direct, int* in, int* out, int count) {
  const double t = MPI_Wtime();
  for (long i = 0; i < calls; ++i) call(name, direct, in, out, count);
  return MPI_Wtime() - t;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const long calls = argc > 1 ? atol(argv[1]) : 2000000;
  const int count = argc > 2 ? atoi(argv[2]) : 1;
  const char* name = argc > 3 ? argv[3] : "allreduce";
  const int paired = argc > 4 && strcmp(argv[4], "paired") == 0;
  const char* known[] = {"barrier",   "allreduce", "bcast",    "allgather",     "allgatherv",
                         "alltoallv", "gatherv",   "scatterv", "reduce_scatter"};
  int known_name = 0, size = 1;
  for (size_t i = 0; i < sizeof known / sizeof *known; ++i)
    known_name |= strcmp(name, known[i]) == 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (calls < 1 || count < 1 || !known_name || size > MAX_RANKS || (argc > 4 && !paired)) {
    fprintf(stderr,
            "usage: call_overhead [calls >= 1] [count >= 1] "
            "[barrier|allreduce|bcast|allgather|allgatherv|alltoallv|gatherv|scatterv|"
            "reduce_scatter] "
            "[paired], on at most %d ranks\n",
            MAX_RANKS);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  for (int r = 0; r < size; ++r) counts[r] = count, displs[r] = r * count;
  int* in = calloc((size_t)count * size, sizeof(int));
  int* out = calloc((size_t)count * size, sizeof(int));
  for (int i = 0; i < 1000; ++i) call(name, 0, in, out, count);
  double through_mpi = 0, through_pmpi = 0;
  if (paired) {
    for (int i = 0; i < 1000; ++i) call(name, 1, in, out, count);
    /* Blocks alternated, so that a slow spell lands on both sides. */
    for (long done = 0; done < calls; done += kPairedBlock) {
      const long n = calls - done < kPairedBlock ? calls - done : kPairedBlock;
      through_mpi += timed(n, name, 0, in, out, count);
      through_pmpi += timed(n, name, 1, in, out, count);
    }
  } else {
    through_mpi = timed(calls, name, 0, in, out, count);
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0 && paired)
    printf("%.1f ns/call, %.1f ns/call direct\n", through_mpi / (double)calls * 1e9,
           through_pmpi / (double)calls * 1e9);
  else if (rank == 0)
    printf("%.1f ns/call\n", through_mpi / (double)calls * 1e9);
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
