/*
 * The cost of one small collective call, for the interposer's own share of
 * it: MPI_Allreduce of `count` MPI_INT (default 1) on MPI_COMM_WORLD,
 * `calls` times back to back (default 2000000) after 1000 warm-up calls,
 * and the mean time per call. It links only MPI, so the same binary runs on
 * the MPI library alone or with the interposer preloaded; at np 1 the
 * difference is the interposer's cost per call (with
 * CCT_FORCE="allreduce:0-max:mpi" the cost of a call it keeps on the
 * library; without, its dispatch to the runtime).
 *
 * usage: mpirun -np 1 call_overhead [calls] [count]
 * output: "<ns> ns/call"
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const long calls = argc > 1 ? atol(argv[1]) : 2000000;
  const int count = argc > 2 ? atoi(argv[2]) : 1;
  if (calls < 1 || count < 1) {
    fprintf(stderr, "usage: call_overhead [calls >= 1] [count >= 1]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int* in = calloc((size_t)count, sizeof(int));
  int* out = calloc((size_t)count, sizeof(int));
  for (int i = 0; i < 1000; ++i) MPI_Allreduce(in, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  double t = MPI_Wtime();
  for (long i = 0; i < calls; ++i) MPI_Allreduce(in, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  t = MPI_Wtime() - t;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("%.1f ns/call\n", t / (double)calls * 1e9);
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
