#!/usr/bin/env bash
# The interposer (libcct_mpi.so) preloaded under tests/mpi/mixed_types_check,
# whose ranks describe the same data with different datatypes of one type
# signature (the interposer once hung such programs): on 1 to 5 ranks on
# shared memory (oversubscribed from 3), and on 2 and 3 virtual nodes (the mpi
# transport between them). Every run ends in time with a clean summary line,
# no bcast, gather, scatter, allgather or alltoall call is passed to the MPI
# library on rank 0 (CCT_STATS), and from 2 ranks some rank reports calls run
# on packed copies of derived-type data. A runtime that cannot open is said
# once per process, and the data still arrive.
# usage: mpi_mixed_types.sh <mixed_types_check> <libcct_mpi.so>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
# A job still running after this long is hung. Alone, 5 ranks on 3 virtual
# nodes take 30 s under ASan on 2 cores; beside another MPI test (ctest -j2)
# twice that, which a 60 s limit called a hang.
limit=150
program=$1
interposer=$2

run() {  # <label> <np> [mpirun options...]
  local label=$1 np=$2 status=0
  shift 2
  timeout --kill-after=10 "$limit" mpirun --allow-run-as-root --oversubscribe -np "$np" \
    -x LD_PRELOAD="$interposer" -x CCT_STATS=1 "$@" "$program" >"$out" 2>"$err" || status=$?
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    fail "$label: hung (killed after $limit s, exit status $status)"
  fi
  [ "$status" -eq 0 ] || fail "$label: exit status $status"
  grep -Eq "^mixed_types_check: $np ranks, [0-9]+ checks, 0 failures on all ranks$" "$out" ||
    fail "$label: no clean summary line"
  grep -Eq '^cct: (calls passed to the MPI library|no collective call was passed to the MPI library) \(rank 0\)$' \
    "$err" || fail "$label: no CCT_STATS report of the calls passed to the MPI library"
  ! grep -Eq '^  (bcast|gather|scatter|allgather|alltoall): [0-9]+ call\(s\): ' "$err" ||
    fail "$label: a bcast, gather, scatter, allgather or alltoall call was passed to the MPI library"
  if [ "$np" -ge 2 ]; then
    grep -q '^cct: calls run on packed copies' "$err" || fail "$label: no rank reported packed copies"
  fi
}

for np in 1 2 3 4 5; do
  run "np $np" "$np"
done
run "2 virtual nodes" 4 -x CCT_VIRTUAL_NODES=2
run "3 virtual nodes" 5 -x CCT_VIRTUAL_NODES=3
# A runtime that cannot open (here: a transport no plugin provides) costs
# only speed: every byte still arrives, through the MPI library, and each
# process says why once, whatever CCT_LOG and CCT_STATS say, however many
# communicators the program makes.
timeout --kill-after=10 "$limit" mpirun --allow-run-as-root --oversubscribe -np 3 \
  -x LD_PRELOAD="$interposer" -x CCT_TRANSPORT=nosuch "$program" >"$out" 2>"$err" ||
  fail "no transport: exit status $?"
grep -Eq "^mixed_types_check: 3 ranks, [0-9]+ checks, 0 failures on all ranks$" "$out" ||
  fail "no transport: no clean summary line"
# World rank 0 leads MPI_COMM_WORLD and its duplicate, world rank 2 the
# reversed split: two processes, one line each.
said=$(grep -c "^cct: the runtime failed to open: .*nosuch.*(said once per process)$" "$err")
[ "$said" -eq 2 ] || fail "no transport: said $said times, want once by each of 2 processes"
echo "PASS: the interposer under mixed_types_check on 1 to 5 ranks and on 2 and 3 virtual nodes," \
  "every datatype taken, none passed to the MPI library; a runtime that cannot open said" \
  "once by each process that leads a communicator"
