/* fail_at: an LD_PRELOAD library that makes one call of one rank fail, so
 * that a test can check that a transport's open failing on one rank only
 * sends every rank of the communicator to the MPI library, with the
 * failing rank named, and neither hangs nor splits the job
 * (tests/scripts/open_fails_on_one_rank.sh). Production code knows nothing
 * of it; preload it ahead of the interposer
 * (LD_PRELOAD=libcct_test_fail_at.so:libcct_mpi.so).
 *
 * Environment:
 *   CCT_FAIL_AT=<call>:<n>  the n-th call to <call> fails, where <call> is
 *       shm_open: counted only for the project's segments (a name starting
 *           "/cct-"); fails with EACCES, as a /dev/shm its user may not
 *           open would;
 *       MPI_Comm_dup: every call counted (the interposer's bootstrap and
 *           the mpi transport duplicate each communicator, in that order);
 *           the duplicate is made and freed, so that the other ranks' dup
 *           completes as it would when this rank's failed at its end, and
 *           MPI_ERR_INTERN is returned with MPI_COMM_NULL;
 *   CCT_FAIL_ENV=<name>=<value>  sets that environment variable at load,
 *       before anything reads it: a rank whose setup differs from the
 *       others' (CCT_TOPOLOGY=bogus: the runtime cannot start there);
 *   CCT_FAIL_RANK=<r>  in the process of rank r only (default 1), the rank
 *       taken from OMPI_COMM_WORLD_RANK (set by mpirun).
 * Each failure prints "fail_at: rank <r>: <call> number <n> fails" (or
 * the variable set) on stderr, so that the test knows it happened. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static int my_rank = -1;
static char fail_call[32] = "";
static long fail_n = 0;
static long shm_opens = 0, dups = 0;

__attribute__((constructor)) static void fail_at_init(void) {
  const char* r = getenv("OMPI_COMM_WORLD_RANK");
  const char* target = getenv("CCT_FAIL_RANK");
  const char* at = getenv("CCT_FAIL_AT");
  const char* env = getenv("CCT_FAIL_ENV");
  my_rank = r == NULL ? -1 : atoi(r);
  if (my_rank != (target != NULL ? atoi(target) : 1)) return;
  if (env != NULL && strchr(env, '=') != NULL) {
    fprintf(stderr, "fail_at: rank %d: %s\n", my_rank, env);
    putenv(strdup(env));
  }
  if (at != NULL && (sscanf(at, "%31[A-Za-z_]:%ld", fail_call, &fail_n) != 2 || fail_n < 1))
    fail_call[0] = '\0';
}

/* Whether this call, the n-th to `call`, is the one to fail. */
static int fails(const char* call, long n) {
  if (strcmp(call, fail_call) != 0 || n != fail_n) return 0;
  fprintf(stderr, "fail_at: rank %d: %s number %ld fails\n", my_rank, call, n);
  return 1;
}

int shm_open(const char* name, int oflag, mode_t mode) {
  static int (*next)(const char*, int, mode_t) = NULL;
  if (next == NULL) next = (int (*)(const char*, int, mode_t))dlsym(RTLD_NEXT, "shm_open");
  if (strncmp(name, "/cct-", 5) == 0 && fails("shm_open", ++shm_opens)) {
    errno = EACCES;
    return -1;
  }
  return next(name, oflag, mode);
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  const int rc = PMPI_Comm_dup(comm, newcomm);
  if (rc != MPI_SUCCESS || !fails("MPI_Comm_dup", ++dups)) return rc;
  PMPI_Comm_free(newcomm);
  *newcomm = MPI_COMM_NULL;
  return MPI_ERR_INTERN;
}
