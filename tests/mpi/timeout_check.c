/* A rank that hangs in a production MPI program, under the interposer with
 * CCT_TIMEOUT: every rank calls the collective (allreduce or barrier)
 * once, then rank STOP_RANK stops itself (SIGSTOP, as a debugger or a
 * stuck page fault would hold it) and the others call it again. They must
 * end the job with the runtime's message naming that rank, not hang. A
 * rank whose second call returns says so on stdout; STOP_RANK -1 stops no
 * rank, and then every rank says so. With "kill" rank STOP_RANK dies
 * instead (SIGKILL, as the kernel's OOM killer or a node's failure would
 * end it), which the MPI library itself sees.
 * usage: timeout_check allreduce|barrier STOP_RANK [stop|kill] */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void call(const char* collective) {
  int in = 1, out = 0;
  if (strcmp(collective, "barrier") == 0)
    MPI_Barrier(MPI_COMM_WORLD);
  else
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

int main(int argc, char** argv) {
  const int kill_it = argc == 4 && strcmp(argv[3], "kill") == 0;
  if (argc < 3 || argc > 4 || (argc == 4 && !kill_it && strcmp(argv[3], "stop") != 0) ||
      (strcmp(argv[1], "allreduce") != 0 && strcmp(argv[1], "barrier") != 0)) {
    fprintf(stderr, "usage: %s allreduce|barrier STOP_RANK [stop|kill]\n", argv[0]);
    return 2;
  }
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  printf("timeout_check: rank %d: pid %ld\n", rank, (long)getpid());
  fflush(stdout); /* a rank the job kills loses what it buffered */
  call(argv[1]);
  if (rank == atoi(argv[2])) {
    raise(kill_it ? SIGKILL : SIGSTOP);
    /* mpirun continues a stopped rank (SIGCONT) as it kills the job: leave
     * at once, so that the others' calls can only end by their timeout. */
    _exit(3);
  }
  call(argv[1]);
  printf("timeout_check: rank %d: the second %s returned\n", rank, argv[1]);
  MPI_Finalize();
  return 0;
}
