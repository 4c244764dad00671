/* A rank that hangs in a production MPI program, under the interposer with
 * CCT_TIMEOUT: every rank calls the collective (allreduce or barrier)
 * once, then rank STOP_RANK stops itself (SIGSTOP, as a debugger or a
 * stuck page fault would hold it) and the others call it again. They must
 * end the job with the runtime's message naming that rank, not hang. A
 * rank whose second call returns says so on stdout; STOP_RANK -1 stops no
 * rank, and then every rank says so. With "kill" rank STOP_RANK dies
 * instead (SIGKILL, as the kernel's OOM killer or a node's failure would
 * end it), which the MPI library itself sees. With "reversed" the calls
 * are on a communicator of all ranks in reverse order (STOP_RANK is still
 * a rank of MPI_COMM_WORLD): messages must tell its ranks from the world's.
 * usage: timeout_check allreduce|barrier STOP_RANK [stop|kill [reversed]] */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void call(const char* collective, MPI_Comm comm) {
  int in = 1, out = 0;
  if (strcmp(collective, "barrier") == 0)
    MPI_Barrier(comm);
  else
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm);
}

int main(int argc, char** argv) {
  const int kill_it = argc >= 4 && strcmp(argv[3], "kill") == 0;
  const int reversed = argc == 5 && strcmp(argv[4], "reversed") == 0;
  if (argc < 3 || argc > 5 || (argc >= 4 && !kill_it && strcmp(argv[3], "stop") != 0) ||
      (argc == 5 && !reversed) ||
      (strcmp(argv[1], "allreduce") != 0 && strcmp(argv[1], "barrier") != 0)) {
    fprintf(stderr, "usage: %s allreduce|barrier STOP_RANK [stop|kill [reversed]]\n", argv[0]);
    return 2;
  }
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm comm = MPI_COMM_WORLD;
  if (reversed) MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &comm);
  printf("timeout_check: rank %d: pid %ld\n", rank, (long)getpid());
  fflush(stdout); /* a rank the job kills loses what it buffered */
  call(argv[1], comm);
  if (rank == atoi(argv[2])) {
    raise(kill_it ? SIGKILL : SIGSTOP);
    /* mpirun continues a stopped rank (SIGCONT) as it kills the job: leave
     * at once, so that the others' calls can only end by their timeout. */
    _exit(3);
  }
  call(argv[1], comm);
  printf("timeout_check: rank %d: the second %s returned\n", rank, argv[1]);
  if (reversed) MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}
