/* An MPI program of our own for the interposer (libcct_mpi.so): every
 * intercepted collective with arguments the runtime takes (several counts,
 * every root, the MPI_IN_PLACE forms, a root whose other side has another
 * layout) and with arguments it leaves to the MPI library (a user
 * operator, MAXLOC, a bitwise operator), on MPI_COMM_WORLD,
 * on communicators from MPI_Comm_split and MPI_Comm_dup, and in edge cases
 * (count 0 with null buffers, MPI_COMM_SELF, MPI_UNDEFINED, 50 duplicates
 * made and freed). Every result is checked against a reference computed
 * here, not against the MPI library (Open MPI 4.1.4 saturates 8-bit sums
 * instead of wrapping). A
 * wildcard receive posted across all of it must get only the application's
 * own message. Rank 0 prints the calls it passed to the library, per
 * collective, for the test script to compare with CCT_STATS.
 * Exit status 0 when every check passed. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_PROGRAM "interposer_check"
#include "checks.h"

/* The value rank r contributes at index i of call `salt`. */
static int value(int r, int i, int salt) {
  return (r + 1) * 1000 + i * 7 + salt;
}

static void test_bcast(MPI_Comm comm, int salt) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (int root = 0; root < size; ++root) {
    for (int count = 0; count <= 70000; count = count ? count * 9 : 1) {
      int* buf = malloc((count + 1) * sizeof(int));
      for (int i = 0; i < count; ++i) buf[i] = rank == root ? value(root, i, salt) : -1;
      MPI_Bcast(buf, count, MPI_INT, root, comm);
      int ok = 1;
      for (int i = 0; i < count; ++i) ok &= buf[i] == value(root, i, salt);
      check(ok, "bcast MPI_INT", rank);
      free(buf);
    }
  }
}

static void test_reductions(MPI_Comm comm, int salt) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  enum { n = 1000 };
  int in[n], out[n];
  double din[n], dout[n];
  for (int i = 0; i < n; ++i) {
    in[i] = value(rank, i, salt);
    din[i] = 0.5 * value(rank, i, salt);
  }
  for (int root = 0; root < size; ++root) {
    MPI_Reduce(in, out, n, MPI_INT, MPI_SUM, root, comm);
    if (rank == root) {
      int ok = 1;
      for (int i = 0; i < n; ++i) {
        long want = 0;
        for (int r = 0; r < size; ++r) want += value(r, i, salt);
        ok &= out[i] == want;
      }
      check(ok, "reduce MPI_INT MPI_SUM", rank);
    }
    /* In place at the root. */
    memcpy(out, in, sizeof in);
    MPI_Reduce(rank == root ? MPI_IN_PLACE : in, out, n, MPI_INT, MPI_MAX, root, comm);
    if (rank == root) {
      int ok = 1;
      for (int i = 0; i < n; ++i) ok &= out[i] == value(size - 1, i, salt);
      check(ok, "reduce in place MPI_MAX", rank);
    }
  }
  MPI_Allreduce(din, dout, n, MPI_DOUBLE, MPI_SUM, comm);
  int ok = 1;
  for (int i = 0; i < n; ++i) {
    double want = 0;
    for (int r = 0; r < size; ++r) want += 0.5 * value(r, i, salt);
    ok &= dout[i] == want; /* halves of integers: exact in any order */
  }
  check(ok, "allreduce MPI_DOUBLE MPI_SUM", rank);
  memcpy(out, in, sizeof in);
  MPI_Allreduce(MPI_IN_PLACE, out, n, MPI_INT, MPI_MIN, comm);
  ok = 1;
  for (int i = 0; i < n; ++i) ok &= out[i] == value(0, i, salt);
  check(ok, "allreduce in place MPI_MIN", rank);
  /* 8-bit sums wrap (32 elements: Open MPI 4.1.4's own saturates here). */
  int8_t small[32], small_sum[32];
  for (int i = 0; i < 32; ++i) small[i] = (int8_t)(100 + i);
  MPI_Allreduce(small, small_sum, 32, MPI_INT8_T, MPI_SUM, comm);
  ok = 1;
  for (int i = 0; i < 32; ++i) ok &= small_sum[i] == (int8_t)(uint8_t)((100 + i) * size);
  check(ok, "allreduce MPI_INT8_T MPI_SUM wraps", rank);
}

static void test_gather_scatter(MPI_Comm comm, int salt) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  enum { n = 300 };
  int mine[n];
  int* all = malloc((size_t)size * n * sizeof(int));
  for (int i = 0; i < n; ++i) mine[i] = value(rank, i, salt);
  MPI_Datatype block;
  MPI_Type_contiguous(n, MPI_INT, &block);
  MPI_Type_commit(&block);
  for (int root = 0; root < size; ++root) {
    /* The root receives in blocks of a contiguous derived type. */
    for (int derived_root = 0; derived_root < 2; ++derived_root) {
      memset(all, 0, (size_t)size * n * sizeof(int));
      if (rank == root && derived_root)
        MPI_Gather(mine, n, MPI_INT, all, 1, block, root, comm);
      else
        MPI_Gather(mine, n, MPI_INT, all, n, MPI_INT, root, comm);
      if (rank == root) {
        int ok = 1;
        for (int r = 0; r < size; ++r)
          for (int i = 0; i < n; ++i) ok &= all[r * n + i] == value(r, i, salt);
        check(ok, derived_root ? "gather, root in a derived type" : "gather MPI_INT", rank);
      }
    }
    /* Root in place. */
    for (int i = 0; i < n; ++i) all[root * n + i] = value(root, i, salt);
    MPI_Gather(rank == root ? MPI_IN_PLACE : mine, n, MPI_INT, all, n, MPI_INT, root, comm);
    /* Scatter back what the root holds, also in place at the root. */
    int back[n];
    MPI_Scatter(all, n, MPI_INT, rank == root ? MPI_IN_PLACE : back, n, MPI_INT, root, comm);
    if (rank != root) {
      int ok = 1;
      for (int i = 0; i < n; ++i) ok &= back[i] == value(rank, i, salt);
      check(ok, "scatter MPI_INT after gather in place", rank);
    }
  }
  MPI_Type_free(&block);
  free(all);
}

static void test_all_to_all(MPI_Comm comm, int salt) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  enum { n = 5000 };
  int* send = malloc((size_t)size * n * sizeof(int));
  int* recv = malloc((size_t)size * n * sizeof(int));
  for (int i = 0; i < n; ++i) send[i] = value(rank, i, salt);
  MPI_Allgather(send, n, MPI_INT, recv, n, MPI_INT, comm);
  int ok = 1;
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < n; ++i) ok &= recv[r * n + i] == value(r, i, salt);
  check(ok, "allgather MPI_INT", rank);
  for (int i = 0; i < n; ++i) recv[rank * n + i] = value(rank, i, salt + 1);
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, n, MPI_INT, comm);
  ok = 1;
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < n; ++i) ok &= recv[r * n + i] == value(r, i, salt + 1);
  check(ok, "allgather in place", rank);
  /* Block to rank t: value(rank * size + t, i). */
  for (int t = 0; t < size; ++t)
    for (int i = 0; i < n; ++i) send[t * n + i] = value(rank * size + t, i, salt);
  MPI_Alltoall(send, n, MPI_INT, recv, n, MPI_INT, comm);
  ok = 1;
  for (int f = 0; f < size; ++f)
    for (int i = 0; i < n; ++i) ok &= recv[f * n + i] == value(f * size + rank, i, salt);
  check(ok, "alltoall MPI_INT", rank);
  memcpy(recv, send, (size_t)size * n * sizeof(int));
  MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, n, MPI_INT, comm);
  ok = 1;
  for (int f = 0; f < size; ++f)
    for (int i = 0; i < n; ++i) ok &= recv[f * n + i] == value(f * size + rank, i, salt);
  check(ok, "alltoall in place", rank);
  MPI_Barrier(comm);
  free(send);
  free(recv);
}

static void add_ints(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  for (int i = 0; i < *len; ++i) ((int*)inout)[i] += ((int*)in)[i];
}

/* Three calls the interposer leaves to the library: a user operator, MAXLOC
 * on MPI_2INT and MPI_BAND (allreduce). */
static void test_passed_through(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Op op;
  MPI_Op_create(add_ints, 1, &op);
  int one = rank + 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, op, comm);
  check(sum == size * (size + 1) / 2, "allreduce with a user operator", rank);
  MPI_Op_free(&op);
  int loc_in[2] = {rank * 3, rank}, loc_out[2];
  MPI_Allreduce(loc_in, loc_out, 1, MPI_2INT, MPI_MAXLOC, comm);
  check(loc_out[0] == (size - 1) * 3 && loc_out[1] == size - 1, "allreduce MAXLOC", rank);
  int bits = 0xff ^ (1 << (rank % 8)), all_bits = 0;
  MPI_Allreduce(&bits, &all_bits, 1, MPI_INT, MPI_BAND, comm);
  int want = 0xff;
  for (int r = 0; r < size; ++r) want &= 0xff ^ (1 << (r % 8));
  check(all_bits == want, "allreduce MPI_BAND", rank);
}

/* Count 0 with null buffers, MPI_COMM_SELF, a split that leaves a rank
 * out, and many communicators made, used and freed (each gets a runtime). */
static void test_edges(void) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Bcast(NULL, 0, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Allreduce(NULL, NULL, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Reduce(NULL, NULL, 0, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Gather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Scatter(NULL, 0, MPI_INT, NULL, 0, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Allgather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, MPI_COMM_WORLD);
  MPI_Alltoall(NULL, 0, MPI_INT, NULL, 0, MPI_INT, MPI_COMM_WORLD);
  int mine = rank + 5, got = 0;
  MPI_Allreduce(&mine, &got, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
  check(got == rank + 5, "allreduce on MPI_COMM_SELF", rank);
  MPI_Comm some;
  MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, 0, &some);
  check((rank == 0) == (some == MPI_COMM_NULL), "split leaving rank 0 out", rank);
  if (some != MPI_COMM_NULL) {
    got = 0;
    MPI_Allreduce(&mine, &got, 1, MPI_INT, MPI_MAX, some);
    check(got == size - 1 + 5, "allreduce without rank 0", rank);
    MPI_Comm_free(&some);
  }
  for (int i = 0; i < 50; ++i) {
    MPI_Comm copy;
    MPI_Comm_dup(MPI_COMM_WORLD, &copy);
    int one = 1, ranks = 0;
    MPI_Allreduce(&one, &ranks, 1, MPI_INT, MPI_SUM, copy);
    check(ranks == size, "allreduce on a fresh duplicate", rank);
    MPI_Comm_free(&copy);
  }
}

static void test_everything(MPI_Comm comm, int salt) {
  test_bcast(comm, salt);
  test_reductions(comm, salt);
  test_gather_scatter(comm, salt);
  test_all_to_all(comm, salt);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* A wildcard receive waits across every collective below. */
  int wildcard = -1;
  MPI_Request request;
  MPI_Status status;
  MPI_Irecv(&wildcard, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &request);

  test_everything(MPI_COMM_WORLD, 1);
  test_passed_through(MPI_COMM_WORLD);
  test_edges();
  MPI_Comm half, copy;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half); /* reversed order */
  test_everything(half, 2);
  MPI_Comm_dup(half, &copy);
  test_everything(copy, 3);
  MPI_Comm_free(&copy);
  MPI_Comm_free(&half);

  const int token = 424242 + rank;
  MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 77, MPI_COMM_WORLD);
  MPI_Wait(&request, &status);
  const int from = (rank + size - 1) % size;
  check(wildcard == 424242 + from && status.MPI_SOURCE == from && status.MPI_TAG == 77,
        "a wildcard receive gets only the application's message", rank);

  int failed = 0;
  MPI_Allreduce(&failures, &failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("interposer_check: %d ranks, %d checks on rank 0, %d failures on all ranks\n", size,
           checks, failed);
    /* What test_passed_through left to the library on MPI_COMM_WORLD. */
    printf("expected pass-through on rank 0: allreduce 3\n");
  }
  MPI_Finalize();
  return failed == 0 ? 0 : 1;
}
