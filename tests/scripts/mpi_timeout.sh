#!/usr/bin/env bash
# CCT_TIMEOUT under the interposer (tests/mpi/timeout_check): a rank that
# stops mid-job makes the others end the job through MPI_Abort with a
# message naming the collective, the communicator, and the stopped rank
# with its pid and state, well before the test's limit; nothing is left in
# /dev/shm. Each kind of wait: shm p2p (allreduce, 2 ranks), a flag in a
# shared region (barrier forced to central_counter, 3 ranks, the last
# stopped) and the mpi transport's p2p, on MPI_COMM_WORLD and on a
# communicator of its ranks in reverse order. A malformed CCT_TIMEOUT is
# named and costs only itself: the program runs without a deadline.
# usage: mpi_timeout.sh <timeout_check> <libcct_mpi.so>
set -uo pipefail
source "$(dirname "$0")/lib.sh"
program=$1
interposer=$2

# <label> <np> <collective> <stop rank> <timeout> [mpirun options...]
# [-- timeout_check's further arguments]; sets $status and $took (seconds).
run() {
  local label=$1 np=$2 collective=$3 stop=$4 timeout=$5
  shift 5
  local options=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do options+=("$1") && shift; done
  [ $# -eq 0 ] || shift
  local start=$SECONDS
  status=0
  timeout --kill-after=10 60 mpirun --allow-run-as-root --oversubscribe -np "$np" \
    -x LD_PRELOAD="$interposer" -x CCT_TIMEOUT="$timeout" "${options[@]}" \
    "$program" "$collective" "$stop" "$@" >"$out" 2>"$err" || status=$?
  took=$((SECONDS - start))
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    fail "$label: hung (killed after 60 s)"
  fi
  # Only this job's segments: other tests running beside this one have
  # theirs. A segment's name carries its creator's pid.
  local left pid f
  left=$(for pid in $(sed -n 's/^timeout_check: rank [0-9]*: pid \([0-9]*\)$/\1/p' "$out"); do
    for f in /dev/shm/cct-*-shm-"$pid"-*; do [ -e "$f" ] && echo "${f#/dev/shm/}"; done
  done)
  [ -z "$left" ] || fail "$label: left in /dev/shm: $left"
  grep -q '^timeout_check: rank 0: pid' "$out" || fail "$label: rank 0 printed no pid"
}

# <label> <regex the abort message must match>
expect_abort() {
  local label=$1 want=$2
  [ "$status" -ne 0 ] || fail "$label: the job ended with status 0"
  ! grep -q 'returned' "$out" || fail "$label: a call returned although a rank never joined it"
  grep -Eq "$want" "$err" || fail "$label: no message matching: $want"
  grep -q '^cct: aborting the job (MPI_Abort) after the timeout above$' "$err" ||
    fail "$label: the job was not aborted through MPI"
  [ "$took" -lt 30 ] || fail "$label: took $took s with CCT_TIMEOUT=2"
  echo "PASS: $label: aborted after $took s, naming the stopped rank"
}

run "shm p2p" 2 allreduce 1 2
expect_abort "shm p2p" \
  '^cct: rank 0: allreduce of 4 B on MPI_COMM_WORLD \(2 ranks\) timed out \(CCT_TIMEOUT=2 s\): .*no progress for 2 s; waiting for rank 1 \(pid [0-9]+, stopped\)$'

run "shm flag" 3 barrier 2 2 -x CCT_FORCE=barrier:0-max:central_counter
expect_abort "shm flag" \
  '^cct: rank [01]: barrier of 0 B on MPI_COMM_WORLD \(3 ranks\) timed out \(CCT_TIMEOUT=2 s\): barrier/central_counter failed: shm wait: no progress for 2 s; waiting for rank 2 \(pid [0-9]+, stopped\)$'

run "mpi transport" 2 allreduce 1 2 -x CCT_TRANSPORT=mpi
expect_abort "mpi transport" \
  '^cct: rank 0: allreduce of 4 B on MPI_COMM_WORLD \(2 ranks\) timed out \(CCT_TIMEOUT=2 s\): .*no progress for 2 s; waiting for rank 1 on '"$(hostname)"' \((send|receive)\)'

# On a communicator whose ranks are not the world's, the peer waited for is
# named by both (world rank 1 is the reversed communicator's rank 0).
run "mpi transport, reversed communicator" 2 allreduce 1 2 -x CCT_TRANSPORT=mpi -- stop reversed
expect_abort "mpi transport, reversed communicator" \
  '^cct: rank 1: allreduce of 4 B on a communicator of 2 ranks timed out \(CCT_TIMEOUT=2 s\): .*no progress for 2 s; waiting for rank 0 \(world rank 1\) on '"$(hostname)"' \((send|receive)\)'

run "malformed value" 2 allreduce -1 soon
[ "$status" -eq 0 ] || fail "malformed value: exit status $status"
[ "$(grep -c 'the second allreduce returned' "$out")" -eq 2 ] ||
  fail "malformed value: not every rank's second call returned"
grep -q "CCT_TIMEOUT='soon': expected seconds" "$err" ||
  fail "malformed value: CCT_TIMEOUT='soon' is not named"
echo "PASS: malformed value: named, and the program ran without a deadline"
