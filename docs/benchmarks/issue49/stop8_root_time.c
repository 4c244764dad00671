/* Each rank's own time in MPI_Bcast of BYTES from root 0 in an OSU-style loop (the library's
 * MPI_Barrier after every call; 200 warm-up calls, then the mean of 1000), ROUNDS rounds, and
 * the barrier's time after it (issue 49, eighth stop: where a project algorithm's small call
 * loses outside). Build: mpicc -O2 -o stop8_root_time stop8_root_time.c
 * usage: mpirun -np 2 ./stop8_root_time [BYTES [MODE [ROUNDS]]]
 *        MODE 0: a barrier after each call; 1: none; 2: two */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int bytes = argc > 1 ? atoi(argv[1]) : 8;
  const int mode =
      argc > 2 ? atoi(argv[2]) : 0; /* 0: barrier after; 1: no barrier; 2: two barriers */
  char* buf = calloc(1, bytes + 64);
  for (int round = 0; round < (argc > 3 ? atoi(argv[3]) : 5); ++round) {
    double total = 0, bar = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 1200; ++i) {
      double t0 = MPI_Wtime();
      MPI_Bcast(buf, bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
      double t1 = MPI_Wtime();
      if (mode != 1) MPI_Barrier(MPI_COMM_WORLD);
      if (mode == 2) MPI_Barrier(MPI_COMM_WORLD);
      double t2 = MPI_Wtime();
      if (i >= 200) {
        total += t1 - t0;
        bar += t2 - t1;
      }
    }
    double mine[2] = {total / 1000 * 1e6, bar / 1000 * 1e6}, all[4];
    MPI_Gather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0)
      printf("round %d: bcast r0 %.3f r1 %.3f avg %.3f | barrier r0 %.3f r1 %.3f\n", round, all[0],
             all[2], (all[0] + all[2]) / 2, all[1], all[3]);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
