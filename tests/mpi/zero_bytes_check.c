/* Calls of every collective that move no byte: counts of 0 (in place too),
 * empty blocks of the vector forms, and an empty derived datatype with a
 * positive count. Each must return MPI_SUCCESS and leave every buffer as it
 * was, with a root other than 0 where there is one. Each collective except
 * the barrier is called ROUNDS times per form, so that the interposer's
 * CCT_STATS counts can be checked against the calls made. Exit status 0
 * when every check passed. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define CHECK_PROGRAM "zero_bytes_check"
#include "checks.h"

enum { ROUNDS = 3, WORDS = 64, MAX_RANKS = 64 };

static int sent[WORDS], received[WORDS];
static int zeros[MAX_RANKS], displs[MAX_RANKS];

static void fill(void) {
  for (int i = 0; i < WORDS; ++i) sent[i] = 1000 + i, received[i] = -1 - i;
}

static int untouched(void) {
  for (int i = 0; i < WORDS; ++i)
    if (sent[i] != 1000 + i || received[i] != -1 - i) return 0;
  return 1;
}

/* The call `what` returned rc: it must have succeeded and touched nothing. */
static void expect_nothing(int rc, const char* what, int rank) {
  char text[160];
  snprintf(text, sizeof text, "%s: returned %d", what, rc);
  check(rc == MPI_SUCCESS, text, rank);
  snprintf(text, sizeof text, "%s: a buffer changed", what);
  check(untouched(), text, rank);
  fill();
}

/* Every collective once with `type`, whose `count` elements hold no byte. */
static void every_collective(MPI_Comm comm, MPI_Datatype type, int count, int rank, int size) {
  const int root = size - 1;
  expect_nothing(MPI_Bcast(received, count, type, root, comm), "bcast", rank);
  expect_nothing(MPI_Gather(sent, count, type, received, count, type, root, comm), "gather", rank);
  expect_nothing(MPI_Scatter(sent, count, type, received, count, type, root, comm), "scatter",
                 rank);
  expect_nothing(MPI_Allgather(sent, count, type, received, count, type, comm), "allgather", rank);
  expect_nothing(MPI_Alltoall(sent, count, type, received, count, type, comm), "alltoall", rank);
  expect_nothing(MPI_Allgatherv(sent, 0, type, received, zeros, displs, type, comm), "allgatherv",
                 rank);
  expect_nothing(MPI_Gatherv(sent, 0, type, received, zeros, displs, type, root, comm), "gatherv",
                 rank);
  expect_nothing(MPI_Scatterv(sent, zeros, displs, type, received, 0, type, root, comm), "scatterv",
                 rank);
  expect_nothing(MPI_Alltoallv(sent, zeros, displs, type, received, zeros, displs, type, comm),
                 "alltoallv", rank);
}

/* The reductions with a count of 0, out of place and in place. */
static void every_reduction(MPI_Comm comm, int rank, int size) {
  const int root = size - 1;
  for (int in_place = 0; in_place < 2; ++in_place) {
    const void* in = in_place ? MPI_IN_PLACE : sent;
    const void* in_at_root = in_place && rank == root ? MPI_IN_PLACE : sent;
    expect_nothing(MPI_Reduce(in_at_root, received, 0, MPI_INT, MPI_SUM, root, comm), "reduce",
                   rank);
    expect_nothing(MPI_Allreduce(in, received, 0, MPI_INT, MPI_SUM, comm), "allreduce", rank);
    expect_nothing(MPI_Reduce_scatter_block(in, received, 0, MPI_INT, MPI_SUM, comm),
                   "reduce_scatter_block", rank);
    expect_nothing(MPI_Reduce_scatter(in, received, zeros, MPI_INT, MPI_SUM, comm),
                   "reduce_scatter", rank);
    expect_nothing(MPI_Scan(in, received, 0, MPI_INT, MPI_SUM, comm), "scan", rank);
    expect_nothing(MPI_Exscan(in, received, 0, MPI_INT, MPI_SUM, comm), "exscan", rank);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > MAX_RANKS) {
    if (rank == 0) fprintf(stderr, "zero_bytes_check: at most %d ranks\n", MAX_RANKS);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Datatype empty; /* a positive count of it still holds no byte */
  MPI_Type_contiguous(0, MPI_INT, &empty);
  MPI_Type_commit(&empty);
  fill();
  for (int round = 0; round < ROUNDS; ++round) {
    every_collective(MPI_COMM_WORLD, MPI_INT, 0, rank, size);
    every_collective(MPI_COMM_WORLD, empty, 5, rank, size);
    every_reduction(MPI_COMM_WORLD, rank, size);
  }
  expect_nothing(MPI_Barrier(MPI_COMM_WORLD), "barrier", rank);
  MPI_Type_free(&empty);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("zero_bytes_check: %d ranks, %d checks per rank, %d failures on all ranks\n", size,
           checks, all);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
