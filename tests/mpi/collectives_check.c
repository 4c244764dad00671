/* An MPI program of our own for the interposer's later collectives
 * (interposer_check.c has the first eight): MPI_Reduce_scatter_block,
 * MPI_Reduce_scatter, MPI_Allgatherv, MPI_Scan, MPI_Exscan, MPI_Gatherv,
 * MPI_Scatterv and MPI_Alltoallv, with
 * several counts, uneven and empty blocks, displacements with gaps and in
 * reverse order, a receive datatype with holes, the MPI_IN_PLACE forms and
 * a user operator (left to the library), on MPI_COMM_WORLD and on
 * communicators from MPI_Comm_split (reversed order) and MPI_Comm_dup.
 * Every result is checked against a reference computed here. Exit status
 * 0 when every check passed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_PROGRAM "collectives_check"
#include "checks.h"

/* The value rank r contributes at index i of call `salt`. */
static int value(int r, int i, int salt) {
  return (r + 1) * 1000 + i * 7 + salt;
}

/* Rank r's block of a reduce-scatter or allgatherv with `base` elements per
 * block: uneven, rank 1 empty, the last rank largest. */
static int block_of(int r, int size, int base) {
  return r == 1 ? 0 : base + (r == size - 1 ? 3 * base : r);
}

static void test_reduce_scatter(MPI_Comm comm, int salt) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (int base = 0; base <= 3000; base = base ? base * 30 : 1) {
    int* counts = malloc(size * sizeof(int));
    int total = 0, first = 0;
    for (int r = 0; r < size; ++r) {
      counts[r] = block_of(r, size, base);
      if (r < rank) first += counts[r];
      total += counts[r];
    }
    int* in = malloc((total + 1) * sizeof(int));
    int* out = malloc((total + 1) * sizeof(int));
    for (int i = 0; i < total; ++i) in[i] = value(rank, i, salt);
    for (int in_place = 0; in_place < 2; ++in_place) {
      if (in_place) memcpy(out, in, total * sizeof(int));
      MPI_Reduce_scatter(in_place ? MPI_IN_PLACE : in, out, counts, MPI_INT, MPI_SUM, comm);
      int ok = 1;
      for (int i = 0; i < counts[rank]; ++i) {
        int want = 0;
        for (int r = 0; r < size; ++r) want += value(r, first + i, salt);
        ok &= out[i] == want;
      }
      check(ok, in_place ? "reduce_scatter in place" : "reduce_scatter MPI_INT MPI_SUM", rank);
    }
    /* The block form: every rank's block `base` elements. */
    double* din = malloc(((size_t)size * base + 1) * sizeof(double));
    double* dout = malloc(((size_t)size * base + 1) * sizeof(double));
    for (int i = 0; i < size * base; ++i) din[i] = 0.5 * value(rank, i, salt);
    MPI_Reduce_scatter_block(din, dout, base, MPI_DOUBLE, MPI_MAX, comm);
    int ok = 1;
    for (int i = 0; i < base; ++i) ok &= dout[i] == 0.5 * value(size - 1, rank * base + i, salt);
    check(ok, "reduce_scatter_block MPI_DOUBLE MPI_MAX", rank);
    MPI_Reduce_scatter_block(MPI_IN_PLACE, din, base, MPI_DOUBLE, MPI_MIN, comm);
    ok = 1;
    for (int i = 0; i < base; ++i) ok &= din[i] == 0.5 * value(0, rank * base + i, salt);
    check(ok, "reduce_scatter_block in place MPI_MIN", rank);
    free(din), free(dout), free(in), free(out), free(counts);
  }
}

/* Blocks one element apart, in reverse rank order on odd ranks. */
static int place_blocks(const int* counts, int size, int rank, int* displs) {
  int next = 0;
  for (int k = 0; k < size; ++k) {
    const int r = rank % 2 ? size - 1 - k : k;
    displs[r] = next;
    next += counts[r] + 1;
  }
  return next;
}

static void test_allgatherv(MPI_Comm comm, int salt) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  /* Every other int: a receive type with holes, packed by the interposer. */
  MPI_Datatype strided;
  MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &strided);
  MPI_Type_commit(&strided);
  int* counts = malloc(size * sizeof(int));
  int* displs = malloc(size * sizeof(int));
  for (int base = 0; base <= 30000; base = base ? base * 30 : 1) {
    for (int r = 0; r < size; ++r) counts[r] = block_of(r, size, base);
    const int span = place_blocks(counts, size, rank, displs);
    int* mine = malloc((counts[rank] + 1) * sizeof(int));
    int* all = malloc((2 * (size_t)span + 1) * sizeof(int));
    for (int i = 0; i < counts[rank]; ++i) mine[i] = value(rank, i, salt);
    for (int form = 0; form < 3; ++form) { /* plain, in place, strided */
      const int stride = form == 2 ? 2 : 1;
      for (int i = 0; i < stride * span; ++i) all[i] = -7;
      if (form == 1)
        for (int i = 0; i < counts[rank]; ++i) all[displs[rank] + i] = mine[i];
      MPI_Allgatherv(form == 1 ? MPI_IN_PLACE : mine, counts[rank], MPI_INT, all, counts, displs,
                     form == 2 ? strided : MPI_INT, comm);
      int ok = 1;
      for (int r = 0; r < size; ++r)
        for (int i = 0; i < counts[r]; ++i)
          ok &= all[stride * (displs[r] + i)] == value(r, i, salt);
      /* The gaps between blocks and the type's holes keep their value. */
      int untouched = 0, gaps = 0;
      for (int i = 0; i < stride * span; ++i) untouched += all[i] == -7;
      for (int r = 0; r < size; ++r) gaps += counts[r];
      ok &= untouched == stride * span - gaps;
      check(ok,
            form == 0   ? "allgatherv MPI_INT"
            : form == 1 ? "allgatherv in place"
                        : "allgatherv into a strided type",
            rank);
    }
    free(mine), free(all);
  }
  free(counts), free(displs);
  MPI_Type_free(&strided);
}

/* gatherv, then scatterv back, at every root: blocks of block_of() ints at
 * displacements one element apart (reverse order on odd ranks), in place
 * at the root too. */
static void test_rooted_v(MPI_Comm comm, int salt) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int* counts = malloc(size * sizeof(int));
  int* displs = malloc(size * sizeof(int));
  for (int base = 0; base <= 3000; base = base ? base * 30 : 1)
    for (int root = 0; root < size; ++root)
      for (int in_place = 0; in_place < 2; ++in_place) {
        for (int r = 0; r < size; ++r) counts[r] = block_of(r, size, base);
        const int span = place_blocks(counts, size, rank, displs);
        int* mine = malloc((counts[rank] + 1) * sizeof(int));
        int* all = malloc((span + 1) * sizeof(int));
        for (int i = 0; i < counts[rank]; ++i) mine[i] = value(rank, i, salt);
        for (int i = 0; i < span; ++i) all[i] = -7;
        const int root_in_place = in_place && rank == root;
        if (root_in_place)
          for (int i = 0; i < counts[rank]; ++i) all[displs[rank] + i] = mine[i];
        MPI_Gatherv(root_in_place ? MPI_IN_PLACE : mine, counts[rank], MPI_INT, all, counts, displs,
                    MPI_INT, root, comm);
        int ok = 1;
        for (int r = 0; rank == root && r < size; ++r)
          for (int i = 0; i < counts[r]; ++i) ok &= all[displs[r] + i] == value(r, i, salt);
        check(ok, in_place ? "gatherv in place" : "gatherv MPI_INT", rank);
        /* The root scatters what it gathered; everyone gets its own back. */
        for (int i = 0; i < counts[rank]; ++i) mine[i] = -1;
        MPI_Scatterv(all, counts, displs, MPI_INT, root_in_place ? MPI_IN_PLACE : mine,
                     counts[rank], MPI_INT, root, comm);
        ok = 1;
        for (int i = 0; !root_in_place && i < counts[rank]; ++i)
          ok &= mine[i] == value(rank, i, salt);
        check(ok, in_place ? "scatterv in place" : "scatterv MPI_INT", rank);
        free(mine), free(all);
      }
  free(counts), free(displs);
}

/* Rank i sends block_of((i + 2j) mod n) ints to rank j, at displacements
 * one element apart; in place every pair exchanges block_of((i + j) mod n). */
static void test_alltoallv(MPI_Comm comm, int salt) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int *sc = malloc(size * sizeof(int)), *sd = malloc(size * sizeof(int));
  int *rc = malloc(size * sizeof(int)), *rd = malloc(size * sizeof(int));
  for (int base = 0; base <= 3000; base = base ? base * 30 : 1)
    for (int in_place = 0; in_place < 2; ++in_place) {
      const int spread = in_place ? 1 : 2;
      for (int j = 0; j < size; ++j) {
        sc[j] = block_of((spread * rank + j) % size, size, base);
        rc[j] = block_of((spread * j + rank) % size, size, base);
      }
      const int sspan = place_blocks(sc, size, rank + 1, sd);
      const int rspan = place_blocks(rc, size, rank, rd);
      int* out = malloc((sspan + 1) * sizeof(int));
      int* in = malloc((rspan + 1) * sizeof(int));
      for (int j = 0; j < size; ++j)
        for (int i = 0; i < sc[j]; ++i) out[sd[j] + i] = value(rank, j * 100000 + i, salt);
      for (int i = 0; i < rspan; ++i) in[i] = -7;
      if (in_place)
        for (int j = 0; j < size; ++j)
          for (int i = 0; i < rc[j]; ++i) in[rd[j] + i] = value(rank, j * 100000 + i, salt);
      MPI_Alltoallv(in_place ? MPI_IN_PLACE : out, sc, sd, MPI_INT, in, rc, rd, MPI_INT, comm);
      int ok = 1;
      for (int j = 0; j < size; ++j)
        for (int i = 0; i < rc[j]; ++i) ok &= in[rd[j] + i] == value(j, rank * 100000 + i, salt);
      check(ok, in_place ? "alltoallv in place" : "alltoallv MPI_INT", rank);
      free(out), free(in);
    }
  free(sc), free(sd), free(rc), free(rd);
}

/* Keeps the larger absolute value: a user operator, left to the library. */
static void larger_magnitude(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  for (int i = 0; i < *len; ++i) {
    const int a = ((int*)in)[i], b = ((int*)inout)[i];
    ((int*)inout)[i] = abs(a) > abs(b) ? a : b;
  }
}

static void test_scans(MPI_Comm comm, int salt) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (int n = 0; n <= 30000; n = n ? n * 30 : 1) {
    int* in = malloc((n + 1) * sizeof(int));
    int* out = malloc((n + 1) * sizeof(int));
    for (int i = 0; i < n; ++i) in[i] = value(rank, i, salt);
    for (int exclusive = 0; exclusive < 2; ++exclusive)
      for (int in_place = 0; in_place < 2; ++in_place) {
        memcpy(out, in, n * sizeof(int));
        const void* send = in_place ? MPI_IN_PLACE : in;
        if (exclusive)
          MPI_Exscan(send, out, n, MPI_INT, MPI_SUM, comm);
        else
          MPI_Scan(send, out, n, MPI_INT, MPI_SUM, comm);
        int ok = 1;
        const int last = exclusive ? rank - 1 : rank; /* the ranks summed: 0..last */
        for (int i = 0; last >= 0 && i < n; ++i) {
          int want = 0;
          for (int r = 0; r <= last; ++r) want += value(r, i, salt);
          ok &= out[i] == want;
        }
        check(ok,
              exclusive ? (in_place ? "exscan in place" : "exscan MPI_INT MPI_SUM")
                        : (in_place ? "scan in place" : "scan MPI_INT MPI_SUM"),
              rank);
      }
    free(in), free(out);
  }
  MPI_Op op;
  MPI_Op_create(larger_magnitude, 1, &op);
  int mine = (rank % 2 ? -1 : 1) * value(rank, 0, salt), got = 0;
  MPI_Scan(&mine, &got, 1, MPI_INT, op, comm);
  check(got == (rank % 2 ? -1 : 1) * value(rank, 0, salt), "scan with a user operator", rank);
  MPI_Op_free(&op);
}

static void test_everything(MPI_Comm comm, int salt) {
  test_reduce_scatter(comm, salt);
  test_allgatherv(comm, salt);
  test_scans(comm, salt);
  test_rooted_v(comm, salt);
  test_alltoallv(comm, salt);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  test_everything(MPI_COMM_WORLD, 1);
  MPI_Comm half, copy;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half); /* reversed order */
  test_everything(half, 2);
  MPI_Comm_dup(half, &copy);
  test_everything(copy, 3);
  MPI_Comm_free(&copy);
  MPI_Comm_free(&half);
  int failed = 0;
  MPI_Allreduce(&failures, &failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("collectives_check: %d ranks, %d checks on rank 0, %d failures on all ranks\n", size,
           checks, failed);
  MPI_Finalize();
  return failed == 0 ? 0 : 1;
}
