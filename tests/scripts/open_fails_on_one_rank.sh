#!/usr/bin/env bash
# A transport's open that fails on one rank only (injected by
# tests/support/fail_at.c on rank 1): MPI_COMM_WORLD's runtime fails to open
# on every rank, so all of its calls go to the MPI library on every rank
# (none waits in the runtime for a rank gone to the library); the reason is
# said on stderr, once, naming rank 1, whatever CCT_STATS and CCT_LOG say;
# the program's results stay right, and the communicators it makes later
# are served by the runtime. For each transport:
#   shm: rank 1's first shm_open of a cct segment fails (EACCES);
#   mpi (CCT_TRANSPORT=mpi): rank 1's second MPI_Comm_dup fails, the mpi
#        transport's duplicate of MPI_COMM_WORLD (the first is the
#        interposer's bootstrap's);
#   before any transport: rank 1 set up differently (CCT_TOPOLOGY=bogus
#        there alone), so that the runtime cannot start on it.
# At 2 and 3 ranks, under collectives_check, which first calls eight
# collectives on MPI_COMM_WORLD, then on a split and a duplicate of it (its
# results are right on the library alone, unlike interposer_check's 8-bit
# sums, which Open MPI saturates).
# usage: open_fails_on_one_rank.sh <collectives_check> <libcct_mpi.so> <libcct_test_fail_at.so>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
program=$1
interposer=$2
shim=$3
limit=120 # seconds; a clean run takes a few

run() {  # <label> <np> <mpirun -x options...>
  local label=$1 np=$2
  shift 2
  local start=$SECONDS rc=0
  timeout "$limit" mpirun --allow-run-as-root --oversubscribe -np "$np" \
    -x LD_PRELOAD="$shim:$interposer" "$@" "$program" >"$out" 2>"$err" || rc=$?
  [ "$rc" -ne 124 ] || fail "$label: hung, stopped after $limit s"
  [ "$rc" -eq 0 ] || fail "$label: exit status $rc"
  grep -q "^fail_at: rank 1: " "$err" || fail "$label: the injected failure did not happen"
  grep -q "^collectives_check: $np ranks, .* 0 failures on all ranks$" "$out" ||
    fail "$label: no clean summary line"
  [ $((SECONDS - start)) -lt "$limit" ] || fail "$label: took $((SECONDS - start)) s"
}

# The reason, said once for the job, naming rank 1; $1: what failed there.
said_once() {  # <label> <pattern>
  local lines
  lines=$(grep -c "^cct: the runtime failed to open: .*$2.*(communicator world); its collectives go to the MPI library" "$err" || true)
  [ "$lines" -eq 1 ] || fail "$1: the reason was said $lines times, not once"
}

for np in 2 3; do
  run "shm np $np" "$np" -x CCT_FAIL_AT=shm_open:1
  said_once "shm np $np" "shm open: .* failed on rank 1: .*ermission denied"
  # CCT_STATS: world's calls left to the library with the reason on rank 0,
  # the split and the duplicate served by the runtime.
  run "shm np $np, stats" "$np" -x CCT_FAIL_AT=shm_open:1 -x CCT_STATS=1
  grep -Eq "^  reduce_scatter_block: [0-9]+ call\(s\): the runtime failed to open: .*rank 1" \
    "$err" || fail "shm np $np: world's calls were not counted as left to the library"
  grep -Eq "^size=[0-9]+ +[0-9]+ +allgatherv +[a-z_]+" "$err" ||
    fail "shm np $np: the later communicators were not served by the runtime"

  run "mpi np $np" "$np" -x CCT_FAIL_AT=MPI_Comm_dup:2 -x CCT_TRANSPORT=mpi -x CCT_LOG=off
  said_once "mpi np $np" "mpi transport: MPI_Comm_dup failed on rank 1: "

  run "setup np $np" "$np" -x CCT_FAIL_ENV=CCT_TOPOLOGY=bogus
  said_once "setup np $np" "the runtime cannot start on rank 1: CCT_TOPOLOGY: "
done
echo "PASS: an open failing on rank 1 of 2 and 3 (shm_open; the mpi transport's MPI_Comm_dup;" \
  "the runtime not starting there) sends the communicator to the library on every rank, said" \
  "once, naming rank 1"
