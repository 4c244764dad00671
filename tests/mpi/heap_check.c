/* What the preloaded interposer leaves of the program's heap: glibc serves
 * a large malloc from a mapping of its own (its alignment then the same in
 * every run: 16 bytes past a page) until the program frees a mapped chunk
 * larger than the mmap threshold, which then rises to that size. A library
 * that frees megabytes inside MPI_Init or a collective call moves the
 * program's later buffers onto the heap, at other alignments (measured on
 * an AMD EPYC VM: a send and receive buffer 16 bytes apart modulo 64 made
 * the MPI library's own 64 KiB copies 20 times slower). Checked after
 * MPI_Init and again after the first collectives on MPI_COMM_WORLD, which
 * make its runtime, of 1 KiB (large calls of the MPI library itself free
 * buffers of their size, as the program may): a 2 MiB allocation is still
 * a mapping of its own (mallinfo2's hblks counts them). Exit status 0 when
 * both hold. */
#include <malloc.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { kBig = 2 << 20, kCollectiveBytes = 1024 };

/* Whether a kBig allocation now gets a mapping of its own; *kept holds it
 * until the end (freed, it would raise the threshold itself). */
static int mapped_apart(void** kept) {
  const size_t before = mallinfo2().hblks;
  *kept = malloc(kBig);
  return *kept != NULL && mallinfo2().hblks == before + 1;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, failures = 0;
  void* probes[2];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (!mapped_apart(&probes[0])) {
    fprintf(stderr, "heap_check: rank %d: after MPI_Init a 2 MiB malloc comes from the heap\n",
            rank);
    ++failures;
  }
  char* buf = malloc(kCollectiveBytes);
  char* out = malloc(kCollectiveBytes);
  for (int i = 0; i < kCollectiveBytes; ++i) buf[i] = (char)i;
  for (int round = 0; round < 3; ++round) {
    MPI_Bcast(buf, kCollectiveBytes, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Allreduce(buf, out, kCollectiveBytes / 4, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allgather(buf, kCollectiveBytes / 4, MPI_CHAR, out, kCollectiveBytes / 4, MPI_CHAR,
                  MPI_COMM_WORLD);
  }
  if (!mapped_apart(&probes[1])) {
    fprintf(stderr,
            "heap_check: rank %d: after the first collectives a 2 MiB malloc comes from the heap\n",
            rank);
    ++failures;
  }
  free(buf);
  free(out);
  free(probes[0]);
  free(probes[1]);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("heap_check: %d failures on all ranks\n", all);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
