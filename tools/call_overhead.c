/*
 * The cost of one small collective call, for the interposer's own share of
 * it: `collective` (allreduce, the default, of `count` MPI_INT; bcast,
 * allgather, allgatherv or alltoallv of `count` MPI_INT per block) on
 * MPI_COMM_WORLD, `calls` times back to back (default 2000000) after 1000
 * warm-up calls, and the mean time per call. It links only MPI, so the
 * same binary runs on the MPI library alone or with the interposer
 * preloaded; at np 1 the difference is the interposer's cost per call
 * (with CCT_FORCE="<collective>:0-max:mpi" the cost of a call it keeps on
 * the library for every size; without, its dispatch to the runtime).
 *
 * usage: mpirun -np N call_overhead [calls] [count] [collective]
 * output: "<ns> ns/call"
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_RANKS = 1024 };

static int counts[MAX_RANKS], displs[MAX_RANKS];

/* One call of the collective named `name` (known: checked in main). */
static void call(const char* name, int* in, int* out, int count) {
  MPI_Comm w = MPI_COMM_WORLD;
  if (strcmp(name, "allreduce") == 0) MPI_Allreduce(in, out, count, MPI_INT, MPI_SUM, w);
  if (strcmp(name, "bcast") == 0) MPI_Bcast(in, count, MPI_INT, 0, w);
  if (strcmp(name, "allgather") == 0) MPI_Allgather(in, count, MPI_INT, out, count, MPI_INT, w);
  if (strcmp(name, "allgatherv") == 0)
    MPI_Allgatherv(in, count, MPI_INT, out, counts, displs, MPI_INT, w);
  if (strcmp(name, "alltoallv") == 0)
    MPI_Alltoallv(in, counts, displs, MPI_INT, out, counts, displs, MPI_INT, w);
  if (strcmp(name, "gatherv") == 0)
    MPI_Gatherv(in, count, MPI_INT, out, counts, displs, MPI_INT, 0, w);
  if (strcmp(name, "scatterv") == 0)
    MPI_Scatterv(in, counts, displs, MPI_INT, out, count, MPI_INT, 0, w);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const long calls = argc > 1 ? atol(argv[1]) : 2000000;
  const int count = argc > 2 ? atoi(argv[2]) : 1;
  const char* name = argc > 3 ? argv[3] : "allreduce";
  const char* known[] = {"allreduce", "bcast",   "allgather", "allgatherv",
                         "alltoallv", "gatherv", "scatterv"};
  int known_name = 0, size = 1;
  for (int i = 0; i < 7; ++i) known_name |= strcmp(name, known[i]) == 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (calls < 1 || count < 1 || !known_name || size > MAX_RANKS) {
    fprintf(stderr,
            "usage: call_overhead [calls >= 1] [count >= 1] "
            "[allreduce|bcast|allgather|allgatherv|alltoallv|gatherv|scatterv], on at most %d "
            "ranks\n",
            MAX_RANKS);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  for (int r = 0; r < size; ++r) counts[r] = count, displs[r] = r * count;
  int* in = calloc((size_t)count * size, sizeof(int));
  int* out = calloc((size_t)count * size, sizeof(int));
  for (int i = 0; i < 1000; ++i) call(name, in, out, count);
  double t = MPI_Wtime();
  for (long i = 0; i < calls; ++i) call(name, in, out, count);
  t = MPI_Wtime() - t;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("%.1f ns/call\n", t / (double)calls * 1e9);
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
