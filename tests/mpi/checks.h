/* What the MPI test programs share: every check is counted, and every
 * failure is named on stderr with the program and the rank. Define
 * CHECK_PROGRAM (the program's name, as its messages print it) before
 * including this. */
#ifndef CCT_TESTS_MPI_CHECKS_H
#define CCT_TESTS_MPI_CHECKS_H

#include <stdio.h>

static int failures = 0;
static int checks = 0;

static void check(int ok, const char* what, int rank) {
  ++checks;
  if (!ok) {
    ++failures;
    fprintf(stderr, CHECK_PROGRAM ": rank %d: FAILED: %s\n", rank, what);
  }
}

#endif
